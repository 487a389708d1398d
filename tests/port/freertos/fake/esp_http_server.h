// SPDX-License-Identifier: MIT
/*
 * esp_http_server.h of the FAKE ESP-IDF: the part of ESP-IDF v5's HTTP
 * server API (components/esp_http_server; "HTTP Server" API reference) that
 * src/port/freertos/http_server_esp.cpp calls, with ESP-IDF's types,
 * field order and default-config initializer.
 *
 * The fake (fake_freertos.cpp) listens on no port: httpd_start() records
 * the config, httpd_register_uri_handler() the handlers and
 * httpd_register_err_handler() the error handlers, and a test "requests" a
 * URI with fake::HttpRequest(), which opens a connection (a local stream
 * socket pair, set up as httpd_accept_conn() sets up an accepted socket),
 * picks a handler as esp_http_server's httpd_uri.c does (the config's
 * uri_match_fn, then the method; else the 404 or 405 error handler), and
 * lets the test's client read what the handler sends: the bytes as
 * esp_http_server's httpd_txrx.c puts them on the socket (httpd_send raw,
 * httpd_resp_* framed).
 */
#ifndef FAKE_ESP_HTTP_SERVER_H
#define FAKE_ESP_HTTP_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h> /* ssize_t */

#include "esp_err.h"
#include "freertos/FreeRTOS.h"
#include "freertos/task.h"
#include "http_parser.h"
#include "sdkconfig.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HTTPD_DEFAULT_CONFIG() {                  \
    .task_priority = tskIDLE_PRIORITY + 5,        \
    .stack_size = 4096,                           \
    .core_id = tskNO_AFFINITY,                    \
    .server_port = 80,                            \
    .ctrl_port = 32768,                           \
    .max_open_sockets = 7,                        \
    .max_uri_handlers = 8,                        \
    .max_resp_headers = 8,                        \
    .backlog_conn = 5,                            \
    .lru_purge_enable = false,                    \
    .recv_wait_timeout = 5,                       \
    .send_wait_timeout = 5,                       \
    .global_user_ctx = NULL,                      \
    .global_user_ctx_free_fn = NULL,              \
    .global_transport_ctx = NULL,                 \
    .global_transport_ctx_free_fn = NULL,         \
    .enable_so_linger = false,                    \
    .linger_timeout = 0,                          \
    .open_fn = NULL,                              \
    .close_fn = NULL,                             \
    .uri_match_fn = NULL                          \
}

#define ESP_ERR_HTTPD_BASE (0xb000)
#define ESP_ERR_HTTPD_HANDLERS_FULL (ESP_ERR_HTTPD_BASE + 1)
#define ESP_ERR_HTTPD_HANDLER_EXISTS (ESP_ERR_HTTPD_BASE + 2)
#define ESP_ERR_HTTPD_RESP_SEND (ESP_ERR_HTTPD_BASE + 6)
#define ESP_ERR_HTTPD_TASK (ESP_ERR_HTTPD_BASE + 8)

#define HTTPD_RESP_USE_STRLEN -1

/* httpd_send()'s errors */
#define HTTPD_SOCK_ERR_FAIL -1
#define HTTPD_SOCK_ERR_INVALID -2
#define HTTPD_SOCK_ERR_TIMEOUT -3

/* The type httpd_resp_send_err() sends. */
#define HTTPD_TYPE_TEXT "text/html"

typedef enum {
  HTTPD_500_INTERNAL_SERVER_ERROR = 0,
  HTTPD_501_METHOD_NOT_IMPLEMENTED,
  HTTPD_505_VERSION_NOT_SUPPORTED,
  HTTPD_400_BAD_REQUEST,
  HTTPD_401_UNAUTHORIZED,
  HTTPD_403_FORBIDDEN,
  HTTPD_404_NOT_FOUND,
  HTTPD_405_METHOD_NOT_ALLOWED,
  HTTPD_408_REQ_TIMEOUT,
  HTTPD_411_LENGTH_REQUIRED,
  HTTPD_414_URI_TOO_LONG,
  HTTPD_431_REQ_HDR_FIELDS_TOO_LARGE,
  HTTPD_ERR_CODE_MAX
} httpd_err_code_t;

typedef void* httpd_handle_t;
typedef enum http_method httpd_method_t;
typedef void (*httpd_free_ctx_fn_t)(void* ctx);
typedef esp_err_t (*httpd_open_func_t)(httpd_handle_t hd, int sockfd);
typedef void (*httpd_close_func_t)(httpd_handle_t hd, int sockfd);
typedef bool (*httpd_uri_match_func_t)(const char* reference_uri, const char* uri_to_match,
                                       size_t match_upto);

typedef struct httpd_config {
  unsigned task_priority;
  size_t stack_size;
  BaseType_t core_id;
  uint16_t server_port;
  uint16_t ctrl_port;
  uint16_t max_open_sockets;
  uint16_t max_uri_handlers;
  uint16_t max_resp_headers;
  uint16_t backlog_conn;
  bool lru_purge_enable;
  uint16_t recv_wait_timeout;
  uint16_t send_wait_timeout;
  void* global_user_ctx;
  httpd_free_ctx_fn_t global_user_ctx_free_fn;
  void* global_transport_ctx;
  httpd_free_ctx_fn_t global_transport_ctx_free_fn;
  bool enable_so_linger;
  int linger_timeout;
  httpd_open_func_t open_fn;
  httpd_close_func_t close_fn;
  httpd_uri_match_func_t uri_match_fn;
} httpd_config_t;

typedef struct httpd_req {
  httpd_handle_t handle;
  int method;
  const char uri[CONFIG_HTTPD_MAX_URI_LEN + 1];
  size_t content_len;
  void* aux; /* the fake keeps its response record here */
  void* user_ctx;
  void* sess_ctx;
  httpd_free_ctx_fn_t free_ctx;
  bool ignore_sess_ctx_changes;
} httpd_req_t;

typedef struct httpd_uri {
  const char* uri;
  httpd_method_t method;
  esp_err_t (*handler)(httpd_req_t* r);
  void* user_ctx;
} httpd_uri_t;

esp_err_t httpd_start(httpd_handle_t* handle, const httpd_config_t* config);
esp_err_t httpd_stop(httpd_handle_t handle);
esp_err_t httpd_register_uri_handler(httpd_handle_t handle, const httpd_uri_t* uri_handler);

typedef esp_err_t (*httpd_err_handler_func_t)(httpd_req_t* req, httpd_err_code_t error);
esp_err_t httpd_register_err_handler(httpd_handle_t handle, httpd_err_code_t error,
                                     httpd_err_handler_func_t handler_fn);

esp_err_t httpd_resp_set_status(httpd_req_t* r, const char* status);
esp_err_t httpd_resp_set_type(httpd_req_t* r, const char* type);
esp_err_t httpd_resp_set_hdr(httpd_req_t* r, const char* field, const char* value);
esp_err_t httpd_resp_send(httpd_req_t* r, const char* buf, ssize_t buf_len);
esp_err_t httpd_resp_send_chunk(httpd_req_t* r, const char* buf, ssize_t buf_len);
esp_err_t httpd_resp_send_err(httpd_req_t* req, httpd_err_code_t error, const char* msg);
/* Raw bytes on the connection: the bytes sent (possibly fewer than buf_len),
 * or HTTPD_SOCK_ERR_*. */
int httpd_send(httpd_req_t* r, const char* buf, size_t buf_len);
/* The socket descriptor of the request's session, or -1 for NULL. */
int httpd_req_to_sockfd(httpd_req_t* r);
/* Closes session `sockfd` once the handler has returned: ESP_OK,
 * ESP_ERR_NOT_FOUND (no such session), ESP_ERR_INVALID_ARG. */
esp_err_t httpd_sess_trigger_close(httpd_handle_t handle, int sockfd);

#ifdef __cplusplus
}
#endif

#endif /* FAKE_ESP_HTTP_SERVER_H */
