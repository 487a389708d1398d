// SPDX-License-Identifier: MIT
// counter_log.h: every counter sample goes through RecordCounter, which
// traces it and, with --counter-log FILE, also appends a line
//
//   <counter> <value> <thread>
//
// in call order. Tests compare the trace's counter values with this log.
// The thread is part of the key because one counter (dropped_samples) is
// written by two threads: in a wrapped trace each thread loses its own
// oldest records, so only the per-(counter, thread) sequences are
// contiguous runs of what was logged.
#ifndef PIPELINE_COUNTER_LOG_H
#define PIPELINE_COUNTER_LOG_H

#include <stdint.h>

#include <string>

// Starts logging to path (truncated). False with errno set on failure.
bool OpenCounterLog(const std::string& path);
// Flushes and closes; false if any write failed.
bool CloseCounterLog();

// TRACE_COUNTER(name, value), then the log line if logging. `name` must be
// a string literal (the trace keeps the pointer).
void RecordCounter(const char* name, int64_t value);

#endif  // PIPELINE_COUNTER_LOG_H
