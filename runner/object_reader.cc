#include "runner/object_reader.h"

#include <cmath>

namespace leasesim::runner {

ObjectReader::ObjectReader(const Json& json, std::string path) : json_(json), path_(std::move(path)) {
  if (!json_.is_object()) throw Failure{path_, "must be an object"};
}

const ObjectReader::Json& ObjectReader::Field(const std::string& key) {
  if (!json_.contains(key)) throw Failure{PathOf(key), "is required"};
  read_.insert(key);
  return json_.at(key);
}

std::string ObjectReader::String(const std::string& key) {
  const Json& value = Field(key);
  if (!value.is_string()) throw Failure{PathOf(key), "must be a string"};
  return value.get<std::string>();
}

bool ObjectReader::Boolean(const std::string& key) {
  const Json& value = Field(key);
  if (!value.is_boolean()) throw Failure{PathOf(key), "must be true or false"};
  return value.get<bool>();
}

std::int64_t ObjectReader::Integer(const std::string& key, std::int64_t min, std::int64_t max) {
  const Json& value = Field(key);
  if (!value.is_number_integer()) throw Failure{PathOf(key), "must be an integer"};
  const std::int64_t n = value.get<std::int64_t>();
  if (n < min || n > max) {
    throw Failure{PathOf(key), "must be in [" + std::to_string(min) + ", " + std::to_string(max) + "] (got " +
                                   std::to_string(n) + ")"};
  }
  return n;
}

std::uint32_t ObjectReader::Probability(const std::string& key) {
  const Json& value = Field(key);
  if (!value.is_number()) throw Failure{PathOf(key), "must be a number in [0, 1]"};
  const double p = value.get<double>();
  if (!(p >= 0.0 && p <= 1.0)) throw Failure{PathOf(key), "must be a probability in [0, 1]"};
  return static_cast<std::uint32_t>(std::llround(p * 1'000'000.0));
}

const ObjectReader::Json& ObjectReader::Array(const std::string& key) {
  const Json& value = Field(key);
  if (!value.is_array()) throw Failure{PathOf(key), "must be an array"};
  return value;
}

void ObjectReader::Finish() const {
  for (auto it = json_.begin(); it != json_.end(); ++it) {
    if (!read_.contains(it.key())) throw Failure{PathOf(it.key()), "is not a known field"};
  }
}

}  // namespace leasesim::runner
