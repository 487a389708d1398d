// SPDX-License-Identifier: MIT
// Arduino-ESP32 sketch (seed 000 §3.2): connect Wi-Fi, start tracing and the
// trace server on port 81, trace loop(). Open http://<IP>:81/ and press
// "Capture trace". Not built here (no Espressif toolchain): docs/ports.md §5.
#include <WiFi.h>
#include <mabutrace.h>

const char* ssid = "your_ssid";
const char* password = "your_password";

void setup() {
  Serial.begin(115200);
  delay(1000);
  // 1. Wi-Fi (the web server needs a network).
  WiFi.begin(ssid, password);
  while (WiFi.status() != WL_CONNECTED) {
    delay(500);
    Serial.print(".");
  }
  Serial.println("\nWiFi connected");
  Serial.print("IP address: ");
  Serial.println(WiFi.localIP());
  // 2. Tracing.
  mabutrace_init();
  // 3. The server (port 81: port 80 is often taken by the sketch's own server).
  mabutrace_start_server(81);
  Serial.print("mabutrace server started. Go to http://");
  Serial.print(WiFi.localIP());
  Serial.println(":81/ to capture a trace.");
}

void loop() {
  TRC();  // a scope named "loop" per iteration
  TRACE_COUNTER("free heap", ESP.getFreeHeap());
  delay(1000);
}
