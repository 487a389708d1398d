// SPDX-License-Identifier: MIT
/*
 * lwip/sockets.h of the FAKE ESP-IDF: ESP-IDF's lwIP socket API (the BSD
 * names: setsockopt, SOL_SOCKET, SO_SNDTIMEO with a struct timeval, send)
 * is the host's here, on the fake's local socket pairs (fake_freertos.cpp,
 * the esp_http_server part).
 */
#ifndef FAKE_LWIP_SOCKETS_H
#define FAKE_LWIP_SOCKETS_H

#include <sys/socket.h>
#include <sys/time.h>

#endif /* FAKE_LWIP_SOCKETS_H */
