// SPDX-License-Identifier: MIT
/*
 * FreeRTOSConfig.h of the FAKE ESP-IDF. ESP-IDF derives these from
 * sdkconfig.h (components/freertos/config/include/freertos/FreeRTOSConfig.h
 * in v5): two cores unless CONFIG_FREERTOS_UNICORE, the thread-local storage
 * pointer count from CONFIG_FREERTOS_THREAD_LOCAL_STORAGE_POINTERS, deletion
 * callbacks from CONFIG_FREERTOS_TLSP_DELETION_CALLBACKS.
 */
#ifndef FAKE_FREERTOS_CONFIG_H
#define FAKE_FREERTOS_CONFIG_H

#include "sdkconfig.h"

#ifndef CONFIG_FREERTOS_UNICORE
#define configNUM_CORES 2
#else
#define configNUM_CORES 1
#endif
#define portNUM_PROCESSORS configNUM_CORES

#define configTICK_RATE_HZ CONFIG_FREERTOS_HZ
#define configMAX_TASK_NAME_LEN CONFIG_FREERTOS_MAX_TASK_NAME_LEN
#define configNUM_THREAD_LOCAL_STORAGE_POINTERS CONFIG_FREERTOS_THREAD_LOCAL_STORAGE_POINTERS
#if CONFIG_FREERTOS_TLSP_DELETION_CALLBACKS
#define configTHREAD_LOCAL_STORAGE_DELETE_CALLBACKS 1
#else
#define configTHREAD_LOCAL_STORAGE_DELETE_CALLBACKS 0
#endif
#define configIDLE_TASK_NAME "IDLE"

#endif /* FAKE_FREERTOS_CONFIG_H */
