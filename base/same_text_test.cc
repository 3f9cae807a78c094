#include "base/same_text.h"

#include <string>

#include <gtest/gtest.h>

namespace leasesim::base {
namespace {

TEST(SameText, AgreesWithStringEqualityAtEverySize) {
  for (std::size_t size = 0; size <= 40; ++size) {
    const std::string text(size, 'a');
    EXPECT_TRUE(SameText(text, std::string(size, 'a'))) << size;
    EXPECT_FALSE(SameText(text, std::string(size + 1, 'a'))) << size;
    for (std::size_t at = 0; at < size; ++at) {
      std::string other = text;
      other[at] = 'b';
      EXPECT_FALSE(SameText(text, other)) << size << " " << at;
    }
  }
}

}  // namespace
}  // namespace leasesim::base
