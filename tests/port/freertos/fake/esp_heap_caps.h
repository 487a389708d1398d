// SPDX-License-Identifier: MIT
/*
 * esp_heap_caps.h of the FAKE ESP-IDF: the capability allocator calls the
 * adapter uses, declared as in ESP-IDF v5 ("Heap Memory Allocation" API
 * reference). The fake: aligned_alloc / free; it records the last request
 * so that a test can check the capabilities asked for.
 */
#ifndef FAKE_ESP_HEAP_CAPS_H
#define FAKE_ESP_HEAP_CAPS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MALLOC_CAP_EXEC (1 << 0)
#define MALLOC_CAP_32BIT (1 << 1)
#define MALLOC_CAP_8BIT (1 << 2)
#define MALLOC_CAP_DMA (1 << 3)
#define MALLOC_CAP_SPIRAM (1 << 10)
#define MALLOC_CAP_INTERNAL (1 << 11)
#define MALLOC_CAP_DEFAULT (1 << 12)

void* heap_caps_aligned_alloc(size_t alignment, size_t size, uint32_t caps);
void heap_caps_free(void* ptr);

#ifdef __cplusplus
}
#endif

#endif /* FAKE_ESP_HEAP_CAPS_H */
