# SPDX-License-Identifier: MIT
# Fails a test with MESSAGE (used when a tool the test needs is missing).
message(FATAL_ERROR "${MESSAGE}")
