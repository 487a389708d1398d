// SPDX-License-Identifier: MIT
// armisa_follow_fuzz.cpp: libFuzzer target for the classifier, the memory
// image and the follower (built with -DMABUTRACE_FUZZ=ON; see
// host/armisa/CMakeLists.txt).
//
// Input: byte 0 selects the ISA, the WFx option and where the image is cut
// in two adjacent regions (so instructions straddle regions); the rest is
// the program image at 0x1000. Invariants checked (abort on violation):
// no read outside the image, ranges inside the image, sizes 2/4, direct
// branches and only they have targets, cached walks equal uncached ones.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "follower.h"
#include "instr.h"
#include "memory_image.h"

namespace {

using namespace mabutrace::armisa;

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const uint8_t control = data[0];
  const Isa isa = static_cast<Isa>(control % 3);
  const uint8_t* code = data + 1;
  const size_t code_size = size - 1;
  const size_t cut = code_size > 1 ? (data[1] % code_size) : 0;
  constexpr uint64_t kBase = 0x1000;

  MemoryImage image;
  if (cut > 0) {
    image.AddRegion(kBase, code, cut, kMemAny, nullptr);
    image.AddRegion(kBase + cut, code + cut, code_size - cut, kMemAny, nullptr);
  } else {
    image.AddRegion(kBase, code, code_size, kMemAny, nullptr);
  }
  FollowOptions options;
  options.classify.wfx_waypoints = (control & 8) != 0;
  options.max_instructions = 4096;
  InstrFollower follower(&image, options, 6);
  const uint64_t image_end = kBase + code_size;
  const unsigned step = isa == Isa::kT32 ? 2 : 4;

  for (uint64_t start = kBase; start < image_end; start += step) {
    const WalkResult cached = follower.FindNextP0(start, isa);
    const WalkResult again = follower.FindNextP0(start, isa);
    const WalkResult plain = follower.WalkTo(start, isa, ~uint64_t{0});
    Check(cached.status == plain.status && cached.end == plain.end && cached.num_instr == plain.num_instr);
    Check(again.end == cached.end && again.num_instr == cached.num_instr);
    Check(cached.start == start && cached.end >= start && cached.end <= image_end + 4);
    Check(uint64_t{cached.num_instr} * 2 <= cached.end - start);
    if (cached.ok()) {
      Check(cached.num_instr >= 1);
      Check(cached.info.size == 2 || cached.info.size == 4);
      Check(cached.last_address + cached.info.size == cached.end);
      Check(cached.end <= image_end);
      Check(cached.info.is_p0());
      Check(cached.info.has_target == (cached.info.type == InstrType::kBranch));
    } else {
      Check(cached.status == WalkStatus::kNotAccessible || cached.status == WalkStatus::kLimit);
    }
    // Stopping half way gives a prefix of the same walk.
    const uint64_t mid = start + ((cached.end - start) / 2 / step) * step;
    const WalkResult part = follower.WalkTo(start, isa, mid);
    Check(part.end <= cached.end && part.num_instr <= cached.num_instr);
  }
  for (size_t i = 0; i + 4 <= code_size; i += 2) {
    const uint32_t word =
        uint32_t{code[i]} | uint32_t{code[i + 1]} << 8 | uint32_t{code[i + 2]} << 16 | uint32_t{code[i + 3]} << 24;
    for (Isa each : {Isa::kA64, Isa::kA32, Isa::kT32}) {
      const InstrInfo info = Classify(each, each == Isa::kT32 ? (word << 16 | word >> 16) : word, kBase + i);
      Check(info.size == 2 || info.size == 4);
      Check(info.has_target == (info.type == InstrType::kBranch));
      Check(!info.is_link || info.is_p0());
    }
  }
  return 0;
}
