// Placeholder until the cpp-httplib server lands (same commit series).
#include "mabutrace/mabutrace.h"
extern "C" {
int mabutrace_start_server(uint16_t) { return MABUTRACE_ERR_UNSUPPORTED; }
int mabutrace_start_server_on(const char*, uint16_t) { return MABUTRACE_ERR_UNSUPPORTED; }
uint16_t mabutrace_server_port(void) { return 0; }
void mabutrace_stop_server(void) {}
}
