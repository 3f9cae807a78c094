// core::KvRecordStore (core/kv_record_store.h) against the KV state machine
// (backends/kv_state.h) behind a synchronous KvClient, and against the
// record store it replaces (backends/lease_store.h, the reference model of
// create/CAS/read on versioned records).
#include "core/kv_record_store.h"

#include <gtest/gtest.h>

#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backends/kv_state.h"
#include "backends/lease_store.h"
#include "base/prng.h"

namespace leasesim::backends {
namespace {

using core::KvStatus;
using core::StoreStatus;

// A KvClient applying each call to a KvState at once. A watch with no news
// answers kTimeout at once; `scripted` answers override the next calls'
// statuses (kTimeout after applying: a lost reply; others before).
class SyncKvClient final : public core::KvClient {
 public:
  explicit SyncKvClient(KvState& state) : state_(state) {}

  core::KvTxnResult Txn(const core::KvTxn& txn, core::Nanos timeout) override {
    txn_timeouts.push_back(timeout);
    ++txns;
    const KvStatus forced = NextScripted();
    if (forced != KvStatus::kOk && forced != KvStatus::kTimeout) return core::KvTxnResult{forced, false, 0, {}};
    core::KvTxnResult result = state_.Txn(txn);
    if (forced == KvStatus::kTimeout) return core::KvTxnResult{};
    return result;
  }
  core::KvWatchResult Watch(const core::KvKeys& keys, std::int64_t start_revision, core::Nanos timeout) override {
    (void)timeout;
    watch_starts.push_back(start_revision);
    core::KvWatchResult result = state_.EventsFrom(keys, start_revision);
    if (result.status == KvStatus::kOk && result.events.empty()) result.status = KvStatus::kTimeout;
    return result;
  }
  core::KvLeaseResult LeaseGrant(core::Nanos ttl, core::Nanos timeout) override {
    (void)timeout;
    return state_.LeaseGrant(ttl, 0);
  }
  core::KvLeaseResult LeaseKeepAlive(core::KvLeaseId lease, core::Nanos timeout) override {
    (void)timeout;
    return state_.LeaseKeepAlive(lease, 0);
  }
  core::KvLeaseResult LeaseRevoke(core::KvLeaseId lease, core::Nanos timeout) override {
    (void)timeout;
    return state_.LeaseRevoke(lease);
  }

  std::deque<KvStatus> scripted;
  std::vector<std::int64_t> watch_starts;
  std::vector<core::Nanos> txn_timeouts;
  int txns = 0;

 private:
  KvStatus NextScripted() {
    if (scripted.empty()) return KvStatus::kOk;
    const KvStatus next = scripted.front();
    scripted.pop_front();
    return next;
  }
  KvState& state_;
};

core::LeaseRecord Record(std::string holder, std::int64_t term) {
  return core::LeaseRecord{.holder = std::move(holder), .term = term, .duration_ns = 10'000'000'000,
                           .acquired_wall_ns = -5, .renewed_wall_ns = 1'700'000'000'000'000'000,
                           .preferred_successor = "n2 #3:x"};
}

constexpr core::Nanos kTimeout = 1'000'000'000;

TEST(KvRecordEncoding, RoundTripsEveryField) {
  for (const core::LeaseRecord& record :
       {core::LeaseRecord{}, Record("n1#1", 7), Record("", 0), Record("a b:c 3:", -1),
        core::LeaseRecord{.holder = "x", .term = std::numeric_limits<std::int64_t>::max(),
                          .duration_ns = std::numeric_limits<std::int64_t>::min()}}) {
    const std::string value = core::EncodeLeaseRecord(record);
    const std::optional<core::LeaseRecord> back = core::DecodeLeaseRecord(value);
    ASSERT_TRUE(back.has_value()) << value;
    EXPECT_EQ(*back, record) << value;
  }
  EXPECT_EQ(core::EncodeLeaseRecord(core::LeaseRecord{.holder = "n1#1", .term = 7, .duration_ns = 10}),
            "7 10 0 0 4:n1#1 0:");
}

// The encoding as its format says, written the plain way.
std::string PlainEncoding(const core::LeaseRecord& record) {
  std::string out;
  for (std::int64_t number : {record.term, record.duration_ns, record.acquired_wall_ns, record.renewed_wall_ns}) {
    out += std::to_string(number) + " ";
  }
  out += std::to_string(record.holder.size()) + ":" + record.holder + " ";
  out += std::to_string(record.preferred_successor.size()) + ":" + record.preferred_successor;
  return out;
}

TEST(KvRecordEncoding, ConsecutiveEncodingsSharingFieldsAreWrittenWhole) {
  // The encoder copies the first three numbers' bytes, and the two texts',
  // when they are the last encoding's: every mix of kept and changed
  // fields, of every length.
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  core::LeaseRecord record = Record("n1#1", 7);
  std::vector<core::LeaseRecord> sequence;
  for (std::int64_t renewed : {std::int64_t{1}, std::int64_t{1'700'000'000'000'000'001}, kMin, std::int64_t{0}}) {
    record.renewed_wall_ns = renewed;
    sequence.push_back(record);  // renewals: only the renewal time changes
  }
  for (std::int64_t number : {kMax, kMin, std::int64_t{-1}, std::int64_t{123'456'789}}) {
    record.term = number;
    sequence.push_back(record);
    record.duration_ns = number;
    sequence.push_back(record);
    record.acquired_wall_ns = number;
    sequence.push_back(record);
    sequence.push_back(record);  // the same again
    record.holder += "x";
    sequence.push_back(record);
    record.preferred_successor = std::to_string(number);
    sequence.push_back(record);
    record.holder.clear();
    sequence.push_back(record);
  }
  for (const core::LeaseRecord& each : sequence) {
    const std::string value = core::EncodeLeaseRecord(each);
    EXPECT_EQ(value, PlainEncoding(each));
    EXPECT_EQ(core::DecodeLeaseRecord(value), std::optional<core::LeaseRecord>(each));
  }
}

TEST(KvRecordEncoding, RejectsWhatIsNotARecord) {
  const std::string good = core::EncodeLeaseRecord(Record("n1#1", 3));
  for (const std::string& bad : {std::string(), std::string("{\"holder\":\"n1\"}"), good + "x",
                                 good.substr(0, good.size() - 1), std::string("1 2 3 4 9:n1 0:"),
                                 std::string("1 2 3 4 -1: 0:"), std::string("1 2 3 x 0: 0:"),
                                 std::string("1 2 3 4 0:0:"), std::string("9223372036854775808 2 3 4 0: 0:"),
                                 std::string("-9223372036854775809 2 3 4 0: 0:"),
                                 std::string("12345678901234567890 2 3 4 0: 0:"), std::string("- 2 3 4 0: 0:"),
                                 std::string("1 2 3 4 1:")}) {
    EXPECT_FALSE(core::DecodeLeaseRecord(bad).has_value()) << bad;
  }
}

TEST(KvRecordStore, CreateOnAbsentAndOnPresentKey) {
  KvState state;
  SyncKvClient kv(state);
  core::KvRecordStore store(kv);
  const core::StoreResult created = store.Create("lease", Record("n1#1", 1), kTimeout);
  ASSERT_EQ(created.status, StoreStatus::kOk);
  EXPECT_TRUE(created.current.found);
  EXPECT_EQ(created.current.version, state.keys().at("lease").mod_revision);
  EXPECT_EQ(created.current.record, Record("n1#1", 1));

  const core::StoreResult again = store.Create("lease", Record("n2#1", 1), kTimeout);
  ASSERT_EQ(again.status, StoreStatus::kConflict);
  EXPECT_TRUE(again.current.found);
  EXPECT_EQ(again.current.version, created.current.version);
  EXPECT_EQ(again.current.record, Record("n1#1", 1));  // the winner's, untouched
  EXPECT_EQ(state.keys().at("lease").version, 1);
}

TEST(KvRecordStore, CompareAndSetOnTheModRevision) {
  KvState state;
  SyncKvClient kv(state);
  core::KvRecordStore store(kv);
  const std::int64_t first = store.Create("lease", Record("n1#1", 1), kTimeout).current.version;
  ASSERT_EQ(state.Txn(core::KvTxn{{}, {core::KvRequestOp::Put("other", "x")}, {}}).status, KvStatus::kOk);

  const core::StoreResult renewed = store.CompareAndSet("lease", first, Record("n1#1", 1), kTimeout);
  ASSERT_EQ(renewed.status, StoreStatus::kOk);
  EXPECT_GT(renewed.current.version, first + 1);  // another key's put moved the revision too
  EXPECT_EQ(renewed.current.version, state.keys().at("lease").mod_revision);

  const core::StoreResult stale = store.CompareAndSet("lease", first, Record("n2#1", 2), kTimeout);
  ASSERT_EQ(stale.status, StoreStatus::kConflict);
  EXPECT_EQ(stale.current.version, renewed.current.version);
  EXPECT_EQ(stale.current.record, Record("n1#1", 1));

  const core::StoreResult missing = store.CompareAndSet("nothing", first, Record("n2#1", 2), kTimeout);
  EXPECT_EQ(missing.status, StoreStatus::kConflict);
  EXPECT_FALSE(missing.current.found);
  // Version 0 names the absent record: still no create through a CAS.
  EXPECT_EQ(store.CompareAndSet("nothing", 0, Record("n2#1", 2), kTimeout).status, StoreStatus::kConflict);
  EXPECT_FALSE(state.keys().contains("nothing"));
}

TEST(KvRecordStore, ReadsAbsentPresentAndForeignValues) {
  KvState state;
  SyncKvClient kv(state);
  core::KvRecordStore store(kv);
  const core::StoreResult absent = store.Read("lease", kTimeout);
  EXPECT_EQ(absent.status, StoreStatus::kOk);
  EXPECT_FALSE(absent.current.found);
  const std::int64_t version = store.Create("lease", Record("n1#1", 4), kTimeout).current.version;
  const core::StoreResult present = store.Read("lease", kTimeout);
  EXPECT_EQ(present.status, StoreStatus::kOk);
  EXPECT_EQ(present.current.version, version);
  EXPECT_EQ(present.current.record, Record("n1#1", 4));

  ASSERT_EQ(state.Txn(core::KvTxn{{}, {core::KvRequestOp::Put("foreign", "not a record")}, {}}).status,
            KvStatus::kOk);
  EXPECT_EQ(store.Read("foreign", kTimeout).status, StoreStatus::kUnavailable);
  const core::StoreResult clash = store.Create("foreign", Record("n1#1", 1), kTimeout);
  EXPECT_EQ(clash.status, StoreStatus::kConflict);
  EXPECT_FALSE(clash.current.found);
}

TEST(KvRecordStore, MapsTheCallsOutcomes) {
  KvState state;
  SyncKvClient kv(state);
  core::KvRecordStore store(kv);
  kv.scripted = {KvStatus::kUnavailable, KvStatus::kLeaseNotFound, KvStatus::kInvalid, KvStatus::kTimeout};
  EXPECT_EQ(store.Create("lease", Record("n1#1", 1), kTimeout).status, StoreStatus::kUnavailable);
  EXPECT_EQ(store.Create("lease", Record("n1#1", 1), kTimeout).status, StoreStatus::kUnavailable);
  EXPECT_EQ(store.Create("lease", Record("n1#1", 1), kTimeout).status, StoreStatus::kUnavailable);
  EXPECT_FALSE(state.keys().contains("lease"));  // none of them applied
  // A lost reply: unknown outcome, and here the create took effect.
  EXPECT_EQ(store.Create("lease", Record("n1#1", 1), kTimeout).status, StoreStatus::kTimeout);
  EXPECT_TRUE(state.keys().contains("lease"));
}

// Random creates, CASes and reads on two keys, each applied to the record
// store's reference model and through the adapter: the same answers, the
// adapter's versions being the keys' mod revisions and the model's the
// keys' per-key versions.
TEST(KvRecordStore, AgreesWithTheRecordStoreOnRandomCalls) {
  KvState state;
  SyncKvClient kv(state);
  core::KvRecordStore store(kv);
  LeaseStore reference;
  base::Prng prng(27);
  std::map<std::string, std::int64_t> last_mod;  // per key: the newest mod revision the adapter answered
  const std::string keys[] = {"a", "b"};
  int written = 0;
  int conflicts = 0;
  for (int step = 0; step < 2000; ++step) {
    const std::string& key = keys[static_cast<std::size_t>(prng.UniformRange(0, 1))];
    const core::LeaseRecord record = Record("n" + std::to_string(prng.UniformRange(1, 3)), step);
    const bool current = prng.ChancePpm(700'000);
    const std::int64_t mod_guess = current ? last_mod[key] : prng.UniformRange(0, state.revision());
    // The guess is right for the adapter exactly when it names the key's
    // mod revision; the model is then given the key's version, else none.
    const auto entry = state.keys().find(key);
    const bool hits = entry != state.keys().end() && entry->second.mod_revision == mod_guess;
    const std::int64_t version_guess = hits ? entry->second.version : -1;
    core::StoreResult got;
    core::StoreResult want;
    switch (prng.UniformRange(0, 2)) {
      case 0: got = store.Create(key, record, kTimeout); want = reference.Create(key, record); break;
      case 1:
        got = store.CompareAndSet(key, mod_guess, record, kTimeout);
        want = reference.CompareAndSet(key, version_guess, record);
        break;
      default: got = store.Read(key, kTimeout); want = reference.Read(key); break;
    }
    ASSERT_EQ(got.status, want.status) << "step " << step;
    ASSERT_EQ(got.current.found, want.current.found) << "step " << step;
    ASSERT_EQ(got.current.record, want.current.record) << "step " << step;
    written += got.status == StoreStatus::kOk && got.current.record == record ? 1 : 0;
    conflicts += got.status == StoreStatus::kConflict ? 1 : 0;
    if (!got.current.found) continue;
    ASSERT_EQ(got.current.version, state.keys().at(key).mod_revision) << "step " << step;
    ASSERT_EQ(want.current.version, state.keys().at(key).version) << "step " << step;
    last_mod[key] = got.current.version;
  }
  EXPECT_GT(written, 300);  // both answers, often
  EXPECT_GT(conflicts, 300);
}

TEST(KvRecordStore, WaitForChangeReportsTheNewestPut) {
  KvState state;
  SyncKvClient kv(state);
  core::KvRecordStore store(kv);
  const std::int64_t v1 = store.Create("lease", Record("n1#1", 1), kTimeout).current.version;
  EXPECT_EQ(store.WaitForChange("lease", v1, kTimeout).status, StoreStatus::kTimeout);  // no news
  EXPECT_EQ(kv.watch_starts.back(), v1 + 1);
  const std::int64_t v2 = store.CompareAndSet("lease", v1, Record("n1#1", 1), kTimeout).current.version;
  const std::int64_t v3 = store.CompareAndSet("lease", v2, Record("n2#1", 2), kTimeout).current.version;
  const core::StoreResult change = store.WaitForChange("lease", v1, kTimeout);
  ASSERT_EQ(change.status, StoreStatus::kOk);
  EXPECT_EQ(change.current.version, v3);
  EXPECT_EQ(change.current.record, Record("n2#1", 2));
}

TEST(KvRecordStore, AWatchFromACompactedRevisionReadsAgainAndResumesFromTheRead) {
  KvState state(KvStateConfig{.history_revisions = 2});
  SyncKvClient kv(state);
  core::KvRecordStore store(kv);
  const std::int64_t v1 = store.Create("lease", Record("n1#1", 1), kTimeout).current.version;
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(state.Txn(core::KvTxn{{}, {core::KvRequestOp::Put("other", std::to_string(i))}, {}}).status,
              KvStatus::kOk);
  }
  ASSERT_GT(state.compact_revision(), v1 + 1);
  // Unchanged: no news, and the next watch starts past the read's revision.
  const int txns_before = kv.txns;
  EXPECT_EQ(store.WaitForChange("lease", v1, kTimeout).status, StoreStatus::kTimeout);
  EXPECT_EQ(kv.txns, txns_before + 1);  // the read
  const std::int64_t read_at = state.revision();
  EXPECT_EQ(store.WaitForChange("lease", v1, kTimeout).status, StoreStatus::kTimeout);
  EXPECT_EQ(kv.watch_starts.back(), read_at + 1);
  EXPECT_EQ(kv.txns, txns_before + 1);  // no compaction this time: no read

  // Changed while compacted away: the read is the news.
  const std::int64_t v2 = store.CompareAndSet("lease", v1, Record("n2#1", 2), kTimeout).current.version;
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(state.Txn(core::KvTxn{{}, {core::KvRequestOp::Put("other", std::to_string(i))}, {}}).status,
              KvStatus::kOk);
  }
  const core::StoreResult change = store.WaitForChange("lease", v1, kTimeout);
  ASSERT_EQ(change.status, StoreStatus::kOk);
  EXPECT_EQ(change.current.version, v2);
  EXPECT_EQ(change.current.record, Record("n2#1", 2));
}

TEST(KvRecordStore, WaitForChangeWhileReadsAfterACompactionAsLongAsTheLastWait) {
  // The read after a compacted watch gets the timeout last drawn for a
  // wait, in every wait of every call (the store keeps one drawing function).
  KvState state(KvStateConfig{.history_revisions = 2});
  SyncKvClient kv(state);
  core::KvRecordStore store(kv);
  const std::int64_t v1 = store.Create("lease", Record("n1#1", 1), kTimeout).current.version;
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(state.Txn(core::KvTxn{{}, {core::KvRequestOp::Put("other", std::to_string(i))}, {}}).status,
              KvStatus::kOk);
  }
  core::Nanos next = 0;
  const auto draw = [&] { return next += 1'000; };
  int asked = 0;
  const auto twice = [&] { return ++asked % 3 != 0; };
  // Compacted at once: read (with the first wait's 1000), unchanged; then
  // quiet waits from the read's revision (2000, 3000) until again() declines.
  EXPECT_EQ(store.WaitForChangeWhile("lease", v1, draw, twice).status, StoreStatus::kTimeout);
  EXPECT_EQ(kv.txn_timeouts.back(), 1'000);
  EXPECT_EQ(next, 3'000);
  // A second call, compacted again after more puts: read with its own first wait's.
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(state.Txn(core::KvTxn{{}, {core::KvRequestOp::Put("other", std::to_string(i))}, {}}).status,
              KvStatus::kOk);
  }
  EXPECT_EQ(store.WaitForChangeWhile("lease", v1, draw, twice).status, StoreStatus::kTimeout);
  EXPECT_EQ(kv.txn_timeouts.back(), 4'000);
}

TEST(KvRecordStore, WaitForChangeWhileAsksAgainBetweenQuietWaits) {
  KvState state;
  SyncKvClient kv(state);
  core::KvRecordStore store(kv);
  const std::int64_t v1 = store.Create("lease", Record("n1#1", 1), kTimeout).current.version;
  int drawn = 0;
  int asked = 0;
  const core::StoreResult quiet = store.WaitForChangeWhile(
      "lease", v1,
      [&] {
        ++drawn;
        return kTimeout;
      },
      [&] { return ++asked < 3; });
  EXPECT_EQ(quiet.status, StoreStatus::kTimeout);
  EXPECT_EQ(drawn, 3);
  EXPECT_EQ(asked, 3);
  EXPECT_EQ(kv.watch_starts.size(), 3u);
}

// A KvClient whose watches all answer `answer`: WatchWhileShared hands it
// over as it is held (a simulated stream's answer, shared by every follower
// it reaches), Watch copies it (the generic path).
class OneAnswerKvClient final : public core::KvClient {
 public:
  core::KvTxnResult Txn(const core::KvTxn& txn, core::Nanos timeout) override {
    (void)txn;
    (void)timeout;
    return core::KvTxnResult{};
  }
  core::KvWatchResult Watch(const core::KvKeys& keys, std::int64_t start_revision, core::Nanos timeout) override {
    (void)keys;
    (void)start_revision;
    (void)timeout;
    return *answer;
  }
  core::KvWatchAnswer WatchWhileShared(const core::KvKeys& keys, std::int64_t start_revision,
                                       const std::function<core::Nanos()>& next_timeout,
                                       const std::function<bool()>& again, core::Nanos& last_timeout) override {
    (void)keys;
    (void)start_revision;
    (void)again;
    last_timeout = next_timeout();
    return answer;
  }
  core::KvLeaseResult LeaseGrant(core::Nanos ttl, core::Nanos timeout) override {
    (void)ttl;
    (void)timeout;
    return core::KvLeaseResult{};
  }
  core::KvLeaseResult LeaseKeepAlive(core::KvLeaseId lease, core::Nanos timeout) override {
    (void)lease;
    (void)timeout;
    return core::KvLeaseResult{};
  }
  core::KvLeaseResult LeaseRevoke(core::KvLeaseId lease, core::Nanos timeout) override {
    (void)lease;
    (void)timeout;
    return core::KvLeaseResult{};
  }

  core::KvWatchAnswer answer;
};

void ExpectSameStoreResult(const core::StoreResult& got, const core::StoreResult& want) {
  EXPECT_EQ(got.status, want.status);
  EXPECT_EQ(got.current.found, want.current.found);
  EXPECT_EQ(got.current.version, want.current.version);
  EXPECT_EQ(got.current.record, want.current.record);
}

TEST(KvRecordStore, ASharedAnswerReadsAsItsCopyForEveryFollower) {
  // WaitForChangeWhile takes a kOk answer's record from the last shared
  // answer read on this thread when it is the same answer; every answer,
  // taken shared by several stores in turn, must read as WaitForChange
  // reads its copy.
  KvState state;
  OneAnswerKvClient kv;
  core::KvRecordStore first(kv);
  core::KvRecordStore second(kv);
  const auto put = [&](std::string_view value) {
    ASSERT_EQ(state.Txn(core::KvTxn{{}, {core::KvRequestOp::Put("lease", std::string(value))}, {}}).status,
              KvStatus::kOk);
  };
  const auto check_answer_from = [&](std::int64_t start) {
    kv.answer = std::make_shared<const core::KvWatchResult>(state.EventsFrom(core::KvKeys::Single("lease"), start));
    ASSERT_EQ(kv.answer->status, KvStatus::kOk);
    const core::StoreResult generic = first.WaitForChange("lease", start - 1, kTimeout);
    for (core::KvRecordStore* store : {&first, &second, &first}) {
      ExpectSameStoreResult(store->WaitForChangeWhile("lease", start - 1, [] { return kTimeout; },
                                                      [] { return false; }),
                            generic);
    }
  };
  put(core::EncodeLeaseRecord(Record("n1#1", 1)));
  check_answer_from(1);  // one put
  put(core::EncodeLeaseRecord(Record("n2#1", 2)));
  check_answer_from(2);  // the same key, a new record: a new answer
  put(core::EncodeLeaseRecord(Record("n2#1", 2)));
  check_answer_from(2);  // two events, the newest the same bytes again
  put("not a record");
  check_answer_from(4);  // a foreign value: kUnavailable
  ASSERT_EQ(state.Txn(core::KvTxn{{}, {core::KvRequestOp::Delete(core::KvKeys::Single("lease"))}, {}}).status,
            KvStatus::kOk);
  check_answer_from(3);  // the newest a delete: absent
  put(core::EncodeLeaseRecord(Record("n3#1", 3)));
  check_answer_from(1);  // every event
}

}  // namespace
}  // namespace leasesim::backends
