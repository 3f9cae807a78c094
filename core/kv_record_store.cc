#include "core/kv_record_store.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstring>
#include <utility>
#include <vector>

namespace leasesim::core {
namespace {

// Eight decimal digits of `value` (< 10^8, zero-padded), one per byte, the
// first digit in the lowest byte: split into 4-digit halves, then 2-digit
// pairs, then digits, each level's quotients and remainders side by side in
// lanes of the one word (the converse of TakeEightDigits). Each multiply
// stays within its lane: x / 100 = x * 5243 >> 19 for x < 10^4, and
// x / 10 = x * 103 >> 10 for x < 100.
std::uint64_t EightDigitLanes(std::uint64_t value) {
  const std::uint64_t halves = value / 10'000 | (value % 10'000) << 32;
  const std::uint64_t hundreds = ((halves * 5243) >> 19) & 0x0000'007F'0000'007FULL;
  const std::uint64_t pairs = hundreds | (halves - hundreds * 100) << 16;
  const std::uint64_t tens = ((pairs * 103) >> 10) & 0x000F'000F'000F'000FULL;
  return tens | (pairs - tens * 10) << 8;
}

// What PutNumber may write past its number's end: each block is stored as
// eight bytes, the first block's leading zeros shifted out.
constexpr std::size_t kNumberSlack = 8;

// A block below 10^8 as its digits without leading zeros ("0" for 0):
// the digits shifted down past the zeros, eight bytes stored at once
// (within the slack). Returns the end.
char* PutLeadingDigits(char* at, std::uint64_t block) {
  const std::uint64_t lanes = EightDigitLanes(block);
  const std::size_t zeros = lanes == 0 ? 7 : static_cast<std::size_t>(std::countr_zero(lanes)) / 8;
  const std::uint64_t text = (lanes + 0x3030'3030'3030'3030ULL) >> (8 * zeros);  // "00000000" + the digits
  std::memcpy(at, &text, sizeof text);
  return at + (8 - zeros);
}

// A block below 10^8 as eight digits, zero-padded.
char* PutEightDigits(char* at, std::uint64_t block) {
  const std::uint64_t text = EightDigitLanes(block) + 0x3030'3030'3030'3030ULL;
  std::memcpy(at, &text, sizeof text);
  return at + 8;
}

// Writes `number` at `at` as std::to_chars writes it ("-" and no leading
// zeros; at most 20 characters), eight digits at a time
// (EightDigitLanes): a write encodes four numbers of up to 19 digits, where
// to_chars divides by 100 per two digits. Every store is of constant length
// (inline, no memcpy call); the bytes past the number's end are overwritten
// by what follows or cut (the caller leaves kNumberSlack bytes after each
// number). Returns the end.
char* PutNumber(char* at, std::int64_t number) {
  if (number < 0) *at++ = '-';
  const std::uint64_t magnitude =
      number < 0 ? 0 - static_cast<std::uint64_t>(number) : static_cast<std::uint64_t>(number);
  constexpr std::uint64_t kBlock = 100'000'000;
  if (magnitude < kBlock) return PutLeadingDigits(at, magnitude);  // a term, a text's length
  if (magnitude < kBlock * kBlock) return PutEightDigits(PutLeadingDigits(at, magnitude / kBlock), magnitude % kBlock);
  // 17 to 19 digits (a wall-clock reading in nanoseconds).
  at = PutLeadingDigits(at, magnitude / (kBlock * kBlock));
  at = PutEightDigits(at, magnitude / kBlock % kBlock);
  return PutEightDigits(at, magnitude % kBlock);
}

// Writes "<length>:<bytes>" at `at`; returns the end.
char* PutText(char* at, std::string_view text) {
  at = PutNumber(at, static_cast<std::int64_t>(text.size()));
  *at++ = ':';
  std::memcpy(at, text.data(), text.size());
  return at + text.size();
}

// Eight ASCII digits at `p` as their value; false when one is not a digit.
// All eight at once (SWAR, on the little-endian load: the first digit in
// the lowest byte): a record holds three wall-clock readings of 19 digits,
// and every process a change reaches parses them.
bool TakeEightDigits(const char* p, std::uint64_t& value) {
  static_assert(std::endian::native == std::endian::little);
  std::uint64_t chunk = 0;
  std::memcpy(&chunk, p, sizeof chunk);
  constexpr std::uint64_t kHighNibbles = 0xF0F0F0F0F0F0F0F0ULL;
  constexpr std::uint64_t kZeros = 0x3030303030303030ULL;  // "00000000"
  // A digit byte is 0x30..0x39: high nibble 3, and still 3 after adding 6.
  if ((chunk & kHighNibbles) != kZeros) return false;
  if (((chunk + 0x0606060606060606ULL) & kHighNibbles) != kZeros) return false;
  chunk -= kZeros;  // each byte its digit
  // Neighbouring digits into pairs (d0·10 + d1 in each 16-bit lane), pairs
  // into quadruples (in each 32-bit lane), then the two quadruples.
  chunk = ((chunk * 10) + (chunk >> 8)) & 0x00FF00FF00FF00FFULL;
  chunk = ((chunk * 100) + (chunk >> 16)) & 0x0000FFFF0000FFFFULL;
  value = (chunk & 0xFFFFULL) * 10'000 + (chunk >> 32);
  return true;
}

// Reads a decimal int64 ("-" and at most 19 digits, as to_chars writes
// it) and then `separator` off the front of `rest`. By hand rather than
// from_chars: every read of the record parses six of these, and 19
// digits always fit in 64 bits unsigned, so no digit needs an overflow
// check (from_chars checks each).
bool TakeNumber(std::string_view& rest, std::int64_t& number, char separator = ' ') {
  std::size_t at = 0;
  const bool negative = !rest.empty() && rest[0] == '-';
  at += negative ? 1 : 0;
  const std::size_t first_digit = at;
  std::uint64_t magnitude = 0;
  std::uint64_t eight = 0;
  // Eight at a time while at most 16 digits are taken so, then one by one
  // up to 20 (a 20th digit makes it too long: refused below).
  while (rest.size() - at >= 8 && at - first_digit + 8 <= 16 && TakeEightDigits(rest.data() + at, eight)) {
    magnitude = magnitude * 100'000'000 + eight;
    at += 8;
  }
  const std::size_t limit = std::min(rest.size(), first_digit + 20);
  while (at < limit) {
    const unsigned digit = static_cast<unsigned>(static_cast<unsigned char>(rest[at])) - unsigned{'0'};
    if (digit > 9) break;
    magnitude = magnitude * 10 + digit;
    ++at;
  }
  const std::size_t digits = at - first_digit;
  if (digits == 0 || digits > 19 || at == rest.size() || rest[at] != separator) return false;
  constexpr std::uint64_t kMaxMagnitude = std::uint64_t{1} << 63;  // -INT64_MIN
  if (magnitude > kMaxMagnitude - (negative ? 0 : 1)) return false;
  number = negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
  rest.remove_prefix(at + 1);
  return true;
}

// Reads "<length>:<bytes>" off the front of `rest`.
bool TakeText(std::string_view& rest, std::string& text) {
  std::int64_t length = 0;
  if (!TakeNumber(rest, length, ':') || length < 0) return false;
  if (static_cast<std::uint64_t>(length) > rest.size()) return false;
  text.assign(rest.substr(0, static_cast<std::size_t>(length)));
  rest.remove_prefix(static_cast<std::size_t>(length));
  return true;
}

StoreStatus FailedCall(KvStatus status) {
  // kLeaseNotFound and kInvalid: etcd applied nothing of the txn.
  return status == KvStatus::kTimeout ? StoreStatus::kTimeout : StoreStatus::kUnavailable;
}

// One key's entry as a read's answer: kOk with the record it holds, or
// kUnavailable when it holds none. Decoded into the answer it returns (every
// watch answer comes through here).
StoreResult RecordIn(const KvEntry& entry) {
  StoreResult read{StoreStatus::kOk, {}};
  if (!DecodeLeaseRecordInto(entry.value, read.current.record)) return StoreResult{StoreStatus::kUnavailable, {}};
  read.current.found = true;
  read.current.version = entry.mod_revision;
  return read;
}

// A watch's kOk answer as a read's result: every event is from a revision
// past what the caller knows, so the newest is news.
StoreResult NewestIn(const KvWatchResult& watched) {
  assert(!watched.events.empty());
  const KvWatchEvent& newest = watched.events.back();
  if (newest.type == KvWatchEvent::Type::kDelete) return StoreResult{StoreStatus::kOk, {}};
  return RecordIn(newest.kv);
}

// A range of the record's key as a read's answer.
StoreResult FromRange(const KvTxnResult& ranged) {
  if (ranged.status != KvStatus::kOk) return StoreResult{FailedCall(ranged.status), {}};
  assert(ranged.responses.size() == 1);
  const std::vector<KvEntry>& kvs = ranged.responses.front().kvs;
  if (kvs.empty()) return StoreResult{StoreStatus::kOk, {}};
  return RecordIn(kvs.front());
}

KvTxnResult RangeOf(KvClient& kv, std::string_view key, Nanos timeout, bool serializable) {
  KvRequestOp range = KvRequestOp::Range(KvKeys::Single(key));
  range.serializable = serializable;
  return kv.Range(range, timeout);
}

}  // namespace

StoreResult RecordResultOf(const KvTxnResult& result, const LeaseRecord* written) {
  if (written == nullptr) return FromRange(result);
  if (result.status != KvStatus::kOk) return StoreResult{FailedCall(result.status), {}};
  // The put took the txn's one new revision: the key's mod revision now.
  if (result.succeeded) return StoreResult{StoreStatus::kOk, VersionedRecord{true, result.revision, *written}};
  StoreResult conflict = FromRange(result);
  if (conflict.status != StoreStatus::kOk) return StoreResult{StoreStatus::kConflict, {}};
  conflict.status = StoreStatus::kConflict;
  return conflict;
}

StoreResult RecordResultOf(const KvGuardedPutResult& result, const LeaseRecord& written) {
  if (result.status != KvStatus::kOk) return StoreResult{FailedCall(result.status), {}};
  if (result.succeeded) return StoreResult{StoreStatus::kOk, VersionedRecord{true, result.revision, written}};
  if (!result.current) return StoreResult{StoreStatus::kConflict, {}};  // the range found no record
  StoreResult conflict = RecordIn(*result.current);
  if (conflict.status != StoreStatus::kOk) return StoreResult{StoreStatus::kConflict, {}};
  conflict.status = StoreStatus::kConflict;
  return conflict;
}


namespace {

// Decoding is a pure function of the bytes, and one change's bytes are
// decoded by every process it is pushed to and by the recorder, right
// after the writer encoded them: the last record this thread encoded or
// decoded is remembered with its encoding, and a decode of the same bytes
// copies it.
struct LastRecordCoded {
  bool remembered = false;
  std::string value;
  LeaseRecord record;
  void Remember(std::string_view encoded, const LeaseRecord& decoded) {
    value.assign(encoded);
    record = decoded;
    remembered = true;
  }
};

LastRecordCoded& LastCoded() {
  thread_local LastRecordCoded last;
  return last;
}

// The encoding's first three numbers (term, duration, acquisition time)
// as this thread last wrote them: a leader's renewals change only the
// renewal time, so each renewal's encoding starts with the bytes of the
// one before, copied instead of written digit by digit again.
struct LastRecordPrefix {
  static constexpr std::size_t kBytes = 64;  // three numbers of <= 20 characters, each with its space
  bool written = false;
  std::int64_t term = 0;
  std::int64_t duration_ns = 0;
  std::int64_t acquired_wall_ns = 0;
  std::size_t length = 0;
  char bytes[kBytes] = {};
  bool Holds(const LeaseRecord& record) const {
    return written && term == record.term && duration_ns == record.duration_ns &&
           acquired_wall_ns == record.acquired_wall_ns;
  }
};

LastRecordPrefix& LastPrefix() {
  thread_local LastRecordPrefix last;
  return last;
}

// Writes the record's first three numbers, each with its space, at `at`
// (which has at least LastRecordPrefix::kBytes bytes); returns the end.
char* PutRecordPrefix(char* at, const LeaseRecord& record) {
  LastRecordPrefix& last = LastPrefix();
  if (last.Holds(record)) {
    std::memcpy(at, last.bytes, LastRecordPrefix::kBytes);  // constant length: the bytes past it are overwritten
    return at + last.length;
  }
  char* const start = at;
  for (std::int64_t number : {record.term, record.duration_ns, record.acquired_wall_ns}) {
    at = PutNumber(at, number);
    *at++ = ' ';
  }
  last.written = true;
  last.term = record.term;
  last.duration_ns = record.duration_ns;
  last.acquired_wall_ns = record.acquired_wall_ns;
  last.length = static_cast<std::size_t>(at - start);
  assert(last.length <= LastRecordPrefix::kBytes);
  std::memcpy(last.bytes, start, LastRecordPrefix::kBytes);
  return at;
}

// The encoding's two texts (holder and successor) as this thread last
// wrote them, for the same reason: a renewal keeps both.
struct LastRecordTexts {
  bool written = false;
  std::string holder;
  std::string preferred_successor;
  std::string bytes;  // "<length>:<holder> <length>:<successor>"
};

LastRecordTexts& LastTexts() {
  thread_local LastRecordTexts last;
  return last;
}

// Writes the record's two texts, with the space between, at `at` (which has
// room for them); returns the end.
char* PutRecordTexts(char* at, const LeaseRecord& record) {
  LastRecordTexts& last = LastTexts();
  if (last.written && record.holder == last.holder && record.preferred_successor == last.preferred_successor) {
    std::memcpy(at, last.bytes.data(), last.bytes.size());
    return at + last.bytes.size();
  }
  char* const start = at;
  at = PutText(at, record.holder);
  *at++ = ' ';
  at = PutText(at, record.preferred_successor);
  last.written = true;
  last.holder = record.holder;
  last.preferred_successor = record.preferred_successor;
  last.bytes.assign(start, at);
  return at;
}

std::optional<LeaseRecord> DecodeUncached(std::string_view value) {
  LeaseRecord record;
  std::string_view rest = value;
  for (std::int64_t* number :
       {&record.term, &record.duration_ns, &record.acquired_wall_ns, &record.renewed_wall_ns}) {
    if (!TakeNumber(rest, *number)) return std::nullopt;
  }
  if (!TakeText(rest, record.holder)) return std::nullopt;
  if (rest.empty() || rest.front() != ' ') return std::nullopt;
  rest.remove_prefix(1);
  if (!TakeText(rest, record.preferred_successor) || !rest.empty()) return std::nullopt;
  return record;
}

}  // namespace

std::string EncodeLeaseRecord(const LeaseRecord& record) {
  // Written in place, then cut to length (one allocation, no append's
  // checks): four numbers and two lengths of at most 20 characters, each
  // with its separator, a space between the texts, and the texts.
  constexpr std::size_t kNumberMax = 20;
  std::string out(6 * (kNumberMax + 1) + 1 + record.holder.size() + record.preferred_successor.size() + kNumberSlack,
                  ' ');
  static_assert(6 * (kNumberMax + 1) + 1 >= LastRecordPrefix::kBytes);  // PutRecordPrefix's room
  char* at = PutRecordPrefix(out.data(), record);
  at = PutNumber(at, record.renewed_wall_ns);
  *at++ = ' ';
  at = PutRecordTexts(at, record);
  out.resize(static_cast<std::size_t>(at - out.data()));
  LastCoded().Remember(out, record);
  return out;
}

std::optional<LeaseRecord> DecodeLeaseRecord(std::string_view value) {
  LastRecordCoded& last = LastCoded();
  if (last.remembered && std::string_view(last.value) == value) return last.record;
  std::optional<LeaseRecord> record = DecodeUncached(value);
  if (!record) return std::nullopt;
  last.Remember(value, *record);
  return record;
}

bool DecodeLeaseRecordInto(std::string_view value, LeaseRecord& record) {
  LastRecordCoded& last = LastCoded();
  if (last.remembered && std::string_view(last.value) == value) {
    record = last.record;
    return true;
  }
  std::optional<LeaseRecord> decoded = DecodeLeaseRecord(value);
  if (!decoded) return false;
  record = std::move(*decoded);
  return true;
}

StoreResult KvRecordStore::Read(std::string_view key, Nanos timeout) {
  return FromRange(RangeOf(kv_, key, timeout, options_.serializable_reads));
}

StoreResult KvRecordStore::Create(std::string_view key, const LeaseRecord& record, Nanos timeout) {
  return Write(key, KvCompareTarget::kCreateRevision, 0, record, timeout);  // absent
}

StoreResult KvRecordStore::CompareAndSet(std::string_view key, std::int64_t expected_version,
                                         const LeaseRecord& record, Nanos timeout) {
  // No key has mod revision 0 but an absent one (etcd's revisions start at
  // 1, and a put takes a new one): a CAS on version 0 is a conflict, as the
  // record store has always answered a CAS on a missing record.
  if (expected_version <= 0) {
    StoreResult seen = Read(key, timeout);
    if (seen.status != StoreStatus::kOk) return seen;
    return StoreResult{StoreStatus::kConflict, std::move(seen.current)};
  }
  return Write(key, KvCompareTarget::kModRevision, expected_version, record, timeout);  // unchanged
}

StoreResult KvRecordStore::Write(std::string_view key, KvCompareTarget target, std::int64_t number,
                                 const LeaseRecord& record, Nanos timeout) {
  KvGuardedPut put{.key = std::string(key), .target = target, .result = KvCompareResult::kEqual, .number = number,
                   .value = EncodeLeaseRecord(record)};
  return RecordResultOf(kv_.GuardedPut(std::move(put), timeout), record);
}

std::int64_t KvRecordStore::WatchStart(std::string_view key, std::int64_t known_version) const {
  const bool resumes = known_version == resume_known_ && key == std::string_view(resume_key_);
  return resumes ? resume_revision_ + 1 : known_version + 1;
}

StoreResult KvRecordStore::FromWatch(std::string_view key, std::int64_t known_version,
                                     const KvWatchResult& watched, Nanos timeout) {
  if (watched.status == KvStatus::kOk) return NewestIn(watched);
  if (watched.status != KvStatus::kCompacted) return StoreResult{FailedCall(watched.status), {}};
  // The store no longer has the events from known_version on: read, and
  // if the record is still the one the caller knows, watch from the read's
  // revision next time (etcd issue 8668).
  const KvTxnResult ranged = RangeOf(kv_, key, timeout, options_.serializable_reads);
  StoreResult read = FromRange(ranged);
  if (read.status != StoreStatus::kOk) return read;
  const bool unchanged = read.current.version == known_version;  // (absent: version 0)
  if (!unchanged) return read;
  resume_key_.assign(key);
  resume_known_ = known_version;
  resume_revision_ = ranged.revision;
  return StoreResult{StoreStatus::kTimeout, {}};  // no news yet
}

namespace {

// The news in a stream's answer as a read's result, for a caller that
// holds the answer shared: one change's answer is handed to every follower
// it reaches, one after another on this thread, and what it reads as is a
// pure function of the (immutable) answer. The last answer taken is kept
// alive with its result, so its address cannot be another answer's while
// it is remembered: the others copy the result, where each would compare
// the value's bytes and copy the record (DecodeLeaseRecordInto's hit).
struct LastAnswerRead {
  KvWatchAnswer answer;
  StoreResult result;
};

const StoreResult& NewsOfAnswer(const KvWatchAnswer& answer) {
  thread_local LastAnswerRead last;
  if (last.answer == answer) return last.result;
  last.result = NewestIn(*answer);
  last.answer = answer;
  return last.result;
}

}  // namespace

StoreResult KvRecordStore::WaitForChange(std::string_view key, std::int64_t known_version, Nanos timeout) {
  if (!options_.watch) return StoreResult{StoreStatus::kUnavailable, {}};  // as StoreClient's own
  const KvWatchResult watched = kv_.Watch(KvKeys::Single(key), WatchStart(key, known_version), timeout);
  return FromWatch(key, known_version, watched, timeout);
}

StoreResult KvRecordStore::WaitForChangeWhile(std::string_view key, std::int64_t known_version,
                                              const std::function<Nanos()>& next_timeout,
                                              const std::function<bool()>& again) {
  if (!options_.watch) return StoreResult{StoreStatus::kUnavailable, {}};
  if (watched_.key != key) watched_.key.assign(key);  // (its end stays empty: the key alone)
  Nanos last_timeout = 0;  // the read after a compaction gets as long as the last wait had
  for (;;) {
    // Shared, not copied: a simulated stream's one answer of a change serves every follower.
    const KvWatchAnswer watched =
        kv_.WatchWhileShared(watched_, WatchStart(key, known_version), next_timeout, again, last_timeout);
    assert(watched != nullptr);
    if (watched->status == KvStatus::kOk) return NewsOfAnswer(watched);
    StoreResult result = FromWatch(key, known_version, *watched, last_timeout);
    // A compaction's read that found nothing new: keep waiting from there.
    const bool quiet_after_read = watched->status == KvStatus::kCompacted && result.status == StoreStatus::kTimeout;
    if (!quiet_after_read || !again()) return result;
  }
}

}  // namespace leasesim::core
