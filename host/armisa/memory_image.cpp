// SPDX-License-Identifier: MIT
// memory_image.cpp: see memory_image.h.
#include "memory_image.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace mabutrace::armisa {

std::optional<uint8_t> ParseMemSpace(std::string_view text) {
  std::string up(text);
  for (char& c : up) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  struct Name {
    std::string_view name;
    uint8_t bits;
  };
  static constexpr Name kNames[] = {
      {"EL1S", kMemEL1S}, {"EL1N", kMemEL1N}, {"EL1R", kMemEL1R}, {"EL2S", kMemEL2S}, {"EL2", kMemEL2N},
      {"EL2N", kMemEL2N}, {"EL2R", kMemEL2R}, {"EL3", kMemEL3},   {"ROOT", kMemRoot}, {"S", kMemS},
      {"N", kMemN},       {"R", kMemR},       {"ANY", kMemAny},   {"H", kMemEL2N},    {"P", kMemEL1N},
      {"NP", kMemEL1N},   {"SP", kMemEL1S},
  };
  for (const Name& n : kNames) {
    if (n.name == up) return n.bits;
  }
  return std::nullopt;
}

bool MemoryImage::AddRegion(uint64_t address, const uint8_t* bytes, size_t size, uint8_t spaces, std::string* error) {
  if (size == 0 || address + size < address || spaces == 0) {
    if (error) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "memory region at 0x%llx: empty, wrapping or no space",
                    static_cast<unsigned long long>(address));
      *error = buf;
    }
    return false;
  }
  const uint64_t end = address + size;
  for (const Region& r : regions_) {
    if ((r.spaces & spaces) != 0 && address < r.end && r.start < end) {
      if (error) {
        char buf[128];
        std::snprintf(buf, sizeof buf, "memory region 0x%llx-0x%llx overlaps 0x%llx-0x%llx",
                      static_cast<unsigned long long>(address), static_cast<unsigned long long>(end),
                      static_cast<unsigned long long>(r.start), static_cast<unsigned long long>(r.end));
        *error = buf;
      }
      return false;
    }
  }
  Region region{address, end, spaces, std::make_unique<uint8_t[]>(size)};
  std::memcpy(region.bytes.get(), bytes, size);
  auto at = std::upper_bound(regions_.begin(), regions_.end(), address,
                             [](uint64_t a, const Region& r) { return a < r.start; });
  regions_.insert(at, std::move(region));
  max_end_.resize(regions_.size());
  uint64_t max_end = 0;
  for (size_t i = 0; i < regions_.size(); ++i) max_end_[i] = max_end = std::max(max_end, regions_[i].end);
  return true;
}

bool MemoryImage::AddFile(const std::string& path, uint64_t address, uint8_t spaces, std::string* error,
                          uint64_t offset, uint64_t length) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) {
    if (error) *error = path + ": cannot open";
    return false;
  }
  const uint64_t file_size = static_cast<uint64_t>(in.tellg());
  if (offset > file_size || (length != 0 && length > file_size - offset)) {
    if (error) *error = path + ": offset/length beyond the file (" + std::to_string(file_size) + " bytes)";
    return false;
  }
  if (length == 0) length = file_size - offset;
  std::vector<uint8_t> bytes(length);
  in.seekg(static_cast<std::streamoff>(offset));
  if (!in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(length))) {
    if (error) *error = path + ": read failed";
    return false;
  }
  std::string why;
  if (!AddRegion(address, bytes.data(), bytes.size(), spaces, &why)) {
    if (error) *error = path + ": " + why;
    return false;
  }
  return true;
}

bool MemoryImage::AddFiles(const std::vector<FileAt>& files, std::string* error) {
  for (const FileAt& f : files) {
    if (!AddFile(f.path, f.address, kMemAny, error)) return false;
  }
  return true;
}

MemSpan MemoryImage::Span(uint64_t address, uint8_t space) const {
  // Regions are sorted by start and do not overlap within a space; scan
  // back from the last region starting at or before address.
  auto it = std::upper_bound(regions_.begin(), regions_.end(), address,
                             [](uint64_t a, const Region& r) { return a < r.start; });
  while (it != regions_.begin()) {
    --it;
    if (address < it->end && (it->spaces & space) != 0) {
      return {it->bytes.get() + (address - it->start), it->end - address};
    }
    // No region at or before this one reaches address: stop.
    if (max_end_[static_cast<size_t>(it - regions_.begin())] <= address) break;
  }
  return {};
}

size_t MemoryImage::Read(uint64_t address, size_t length, uint8_t* out, uint8_t space) const {
  size_t done = 0;
  while (done < length) {
    const MemSpan s = Span(address + done, space);
    if (s.size == 0) break;
    const size_t n = static_cast<size_t>(std::min<uint64_t>(s.size, length - done));
    std::memcpy(out + done, s.data, n);
    done += n;
  }
  return done;
}

}  // namespace mabutrace::armisa
