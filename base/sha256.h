#pragma once
// SHA-256 (FIPS 180-4), written here so that reports can name the exact
// scenario file a sweep ran ("file_digest" in summary.json) with a hash
// anyone can recompute with `sha256sum FILE`.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace leasesim::base {

// Hashes a byte stream given in pieces of any size.
class Sha256 {
 public:
  Sha256();
  void Update(std::string_view bytes);
  // The 32-byte digest; the hasher must not be updated afterwards.
  std::array<std::uint8_t, 32> Finish();

 private:
  void Block(const std::uint8_t* block);

  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t length_bytes_ = 0;
  bool finished_ = false;
};

// The digest of `bytes` as 64 lowercase hex digits (what sha256sum prints).
std::string Sha256Hex(std::string_view bytes);

}  // namespace leasesim::base
