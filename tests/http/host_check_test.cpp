// SPDX-License-Identifier: MIT
// host_check_test.cpp: src/http/host_check.h, the Host values a loopback
// server answers (DNS rebinding): every form it accepts, and the near
// misses a rebinding page or a sloppy parser could slip through.
#include <gtest/gtest.h>

#include <string>

#include "http/host_check.h"

namespace {

bool Allowed(const std::string& host) { return mabutrace::http::HostIsLoopbackName(host.data(), host.size()); }

TEST(HttpHostCheck, AcceptsNamesNoDnsAnswerCanRedirect) {
  for (const char* host : {
           "",  // no Host (HTTP/1.0)
           "127.0.0.1",
           "127.0.0.1:8080",
           "10.1.2.3:1",
           "0.0.0.0",
           "255.255.255.255",
           "localhost",
           "LocalHost",
           "localhost:80",
           "localhost:",
           "app.localhost",
           "a.b.LOCALHOST:9",
           "[::1]",
           "[::1]:8080",
           "[::]",
           "[::ffff:127.0.0.1]:80",
           "[2001:db8::1]",
           "[1:2:3:4:5:6:7:8]",
           "[1:2:3:4:5:6::]",
           "[::2:3:4:5:6:7:8]",
           "[1:2:3:4:5:6:1.2.3.4]",
           "[ABCD:ef01::]",
       }) {
    EXPECT_TRUE(Allowed(host)) << host;
  }
}

TEST(HttpHostCheck, RefusesOtherNames) {
  for (const char* host : {
           "rebind.example",
           "rebind.example:8080",
           "attacker.test",
           // Look-alikes of localhost.
           "localhost.",
           "localhost.evil.example",
           "evil-localhost",
           "xlocalhost",
           ".localhost",
           "localhos",
           "127.0.0.1.nip.io",
       }) {
    EXPECT_FALSE(Allowed(host)) << host;
  }
}

TEST(HttpHostCheck, RefusesWhatIsNotAnIpv4Literal) {
  for (const char* host : {"256.0.0.1", "01.2.3.4", "1.2.3", "1.2.3.4.5", "1..2.3", "0x7f.0.0.1", "1.2.3.", ".1.2.3",
                           "1.2.3.4 ", "1.2.3.-4", "1234.1.1.1"}) {
    EXPECT_FALSE(Allowed(host)) << host;
  }
}

TEST(HttpHostCheck, RefusesWhatIsNotAnIpv6Literal) {
  for (const char* host : {"::1", "[::1", "[::1]x", "[]", "[:]", "[:::]", "[1::2::3]", "[1:2:3:4:5:6:7:8:9]",
                           "[1:2:3:4:5:6:7]", "[1:2:3:4:5:6:7:8::]", "[12345::]", "[fe80::1%25eth0]", "[v1.fe]",
                           "[127.0.0.1]", "[:1::]", "[1:]", "[::1.2.3.4.5]", "[1::2:3.4.5.6:7]", "[::g]"}) {
    EXPECT_FALSE(Allowed(host)) << host;
  }
}

TEST(HttpHostCheck, ThePortIsDigits) {
  for (const char* host :
       {"127.0.0.1:80x", "localhost:-1", "localhost: 80", "[::1]:x", "127.0.0.1:8080:80", "localhost:80:80"}) {
    EXPECT_FALSE(Allowed(host)) << host;
  }
}

TEST(HttpHostCheck, AnEmbeddedNulEndsNothing) {
  EXPECT_FALSE(Allowed(std::string("localhost\0.evil.example", 23)));
  EXPECT_FALSE(Allowed(std::string("127.0.0.1\0", 10)));
}

}  // namespace
