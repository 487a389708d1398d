// SPDX-License-Identifier: MIT
/* http_parser.h of the FAKE ESP-IDF: the method enum esp_http_server uses
 * (nodejs http_parser numbering, as bundled by ESP-IDF), up to PATCH. */
#ifndef FAKE_HTTP_PARSER_H
#define FAKE_HTTP_PARSER_H

enum http_method {
  HTTP_DELETE = 0,
  HTTP_GET = 1,
  HTTP_HEAD = 2,
  HTTP_POST = 3,
  HTTP_PUT = 4,
  HTTP_CONNECT = 5,
  HTTP_OPTIONS = 6,
  HTTP_TRACE = 7,
  HTTP_PATCH = 28,
};

#endif /* FAKE_HTTP_PARSER_H */
