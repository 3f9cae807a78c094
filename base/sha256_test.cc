#include "base/sha256.h"

#include <gtest/gtest.h>

namespace leasesim::base {
namespace {

// FIPS 180-4 example vectors, and what `sha256sum` prints for them.
TEST(Sha256, KnownVectors) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Sha256Hex(std::string(1'000'000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Padding edges: lengths around one block, and pieces of any size agree.
TEST(Sha256, PiecesAgreeWithOneUpdateAtEveryLength) {
  std::string text;
  for (int i = 0; i < 130; ++i) text.push_back(static_cast<char>('a' + i % 26));
  for (std::size_t length = 0; length <= text.size(); ++length) {
    const std::string_view whole(text.data(), length);
    Sha256 pieces;
    for (std::size_t at = 0; at < length; at += 7) pieces.Update(whole.substr(at, 7));
    Sha256 once;
    once.Update(whole);
    EXPECT_EQ(pieces.Finish(), once.Finish()) << length;
  }
  EXPECT_EQ(Sha256Hex(std::string(55, 'a')), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(Sha256Hex(std::string(56, 'a')), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  EXPECT_EQ(Sha256Hex(std::string(64, 'a')), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

}  // namespace
}  // namespace leasesim::base
