// SPDX-License-Identifier: MIT
/* esp_err.h of the FAKE ESP-IDF ("Error Codes Reference"). */
#ifndef FAKE_ESP_ERR_H
#define FAKE_ESP_ERR_H

typedef int esp_err_t;
#define ESP_OK 0
#define ESP_FAIL -1
#define ESP_ERR_NO_MEM 0x101
#define ESP_ERR_INVALID_ARG 0x102
#define ESP_ERR_INVALID_STATE 0x103
#define ESP_ERR_NOT_FOUND 0x105

#endif /* FAKE_ESP_ERR_H */
