// SPDX-License-Identifier: MIT
// memory_image.h: the program image an instruction follower reads: a set of
// regions (load address, bytes, memory space), read by address.
//
// A snapshot core .ini lists [dumpN] sections (file, address, optional
// offset/length/space; arm-trace-facts.md section 7.3); the snapshot reader
// turns them into AddFile calls. Regions are immutable once added and
// their bytes are owned here; Span() pointers stay valid until the image
// is destroyed or Clear()ed. Not thread-safe to add while others read;
// reading from several threads is fine.
//
// Memory spaces follow OpenCSD's ocsd_mem_space_acc_t bit values, so a
// region tagged "N" (EL1N|EL2N) is found by an EL1N access, and "ANY"
// regions by every access.
#ifndef MABUTRACE_HOST_ARMISA_MEMORY_IMAGE_H
#define MABUTRACE_HOST_ARMISA_MEMORY_IMAGE_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mabutrace::armisa {

// Bit set of exception level / security state spaces (OCSD_MEM_SPACE_*).
enum MemSpace : uint8_t {
  kMemEL1S = 0x01,
  kMemEL1N = 0x02,
  kMemEL2N = 0x04,  // "EL2" / "EL2N"
  kMemEL3 = 0x08,
  kMemEL2S = 0x10,
  kMemEL1R = 0x20,
  kMemEL2R = 0x40,
  kMemRoot = 0x80,
  kMemS = kMemEL1S | kMemEL2S | kMemEL3,  // any secure
  kMemN = kMemEL1N | kMemEL2N,            // any non-secure
  kMemR = kMemEL1R | kMemEL2R,            // any realm
  kMemAny = 0xFF,
};

// Parses a snapshot "space" value (EL1S, EL1N, EL1R, EL2S, EL2, EL2N, EL2R,
// EL3, ROOT, S, N, R, ANY and the legacy H, P, NP, SP; case-insensitive).
std::optional<uint8_t> ParseMemSpace(std::string_view text);

// Result of a range lookup: a pointer into a region and how many bytes
// follow it in that region (0 and nullptr when the address is not mapped).
struct MemSpan {
  const uint8_t* data = nullptr;
  uint64_t size = 0;
};

class MemoryImage {
 public:
  MemoryImage() = default;
  MemoryImage(const MemoryImage&) = delete;
  MemoryImage& operator=(const MemoryImage&) = delete;
  MemoryImage(MemoryImage&&) = default;
  MemoryImage& operator=(MemoryImage&&) = default;

  // Adds a copy of bytes at address. Fails (false, *error set) if the
  // region is empty, wraps past 2^64, or overlaps a region whose spaces
  // intersect `spaces`.
  bool AddRegion(uint64_t address, const uint8_t* bytes, size_t size, uint8_t spaces, std::string* error);
  // Reads `length` bytes of the file from `offset` (length 0: to the end)
  // and adds them at address. The error names the file.
  bool AddFile(const std::string& path, uint64_t address, uint8_t spaces, std::string* error, uint64_t offset = 0,
               uint64_t length = 0);
  // Convenience for (path, address) pairs, all in kMemAny.
  struct FileAt {
    std::string path;
    uint64_t address;
  };
  bool AddFiles(const std::vector<FileAt>& files, std::string* error);

  // The bytes from address to the end of the region that holds it for an
  // access in `space` (a single space bit, or kMemAny).
  MemSpan Span(uint64_t address, uint8_t space = kMemAny) const;
  // Copies `length` bytes (may cross adjacent regions). Returns the number
  // copied: less than length means the byte at address + result is not
  // accessible.
  size_t Read(uint64_t address, size_t length, uint8_t* out, uint8_t space = kMemAny) const;

  size_t region_count() const { return regions_.size(); }
  void Clear() {
    regions_.clear();
    max_end_.clear();
  }

 private:
  struct Region {
    uint64_t start;
    uint64_t end;  // exclusive (start + size; no wrap)
    uint8_t spaces;
    std::unique_ptr<uint8_t[]> bytes;
  };
  std::vector<Region> regions_;    // sorted by start
  std::vector<uint64_t> max_end_;  // max_end_[i] = max(regions_[0..i].end)
};

}  // namespace mabutrace::armisa

#endif  // MABUTRACE_HOST_ARMISA_MEMORY_IMAGE_H
