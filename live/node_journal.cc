#include "live/node_journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <ctime>

#include <nlohmann/json.hpp>

#include "backends/etcd/real_env.h"
#include "base/units.h"

namespace leasesim::live {
namespace {

using Json = nlohmann::ordered_json;

Json ValueJson(const core::LeaseRecord& record) {
  return Json{{"holder", record.holder}, {"term", record.term}, {"duration_ns", record.duration_ns}};
}

}  // namespace

core::Nanos MonotonicNanos() {
  // determinism-ok: live mode — CLOCK_MONOTONIC, shared by every process of the machine.
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return base::Seconds(ts.tv_sec) + ts.tv_nsec;
}

core::Nanos BootNanos() {
  // determinism-ok: live mode — CLOCK_BOOTTIME, the clock lease deadlines are on.
  timespec ts{};
  ::clock_gettime(CLOCK_BOOTTIME, &ts);
  return base::Seconds(ts.tv_sec) + ts.tv_nsec;
}

const char* StoreStatusName(core::StoreStatus status) {
  switch (status) {
    case core::StoreStatus::kOk: return "ok";
    case core::StoreStatus::kConflict: return "conflict";
    case core::StoreStatus::kUnavailable: return "unavailable";
    case core::StoreStatus::kTimeout: return "timeout";
  }
  return "timeout";
}

const char* LedgerStatusName(core::LedgerStatus status) {
  switch (status) {
    case core::LedgerStatus::kApplied: return "applied";
    case core::LedgerStatus::kRejectedStale: return "stale";
    case core::LedgerStatus::kDuplicate: return "duplicate";
    case core::LedgerStatus::kUnavailable: return "unavailable";
    case core::LedgerStatus::kTimeout: return "timeout";
  }
  return "timeout";
}

NodeJournal::NodeJournal(const std::string& path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

NodeJournal::~NodeJournal() {
  if (fd_ >= 0) ::close(fd_);
}

void NodeJournal::Write(const std::string& json_line) {
  if (fd_ < 0) return;
  const std::string line = json_line + "\n";
  std::lock_guard<std::mutex> lock(mu_);
  const char* data = line.data();
  std::size_t left = line.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, data, left);
    if (n <= 0) return;
    data += n;
    left -= static_cast<std::size_t>(n);
  }
}

template <typename Call>
core::StoreResult JournaledStore::Journaled(const char* kind, std::string_view key, std::int64_t expected,
                                            const core::LeaseRecord* record, Call&& call) {
  const std::int64_t op = journal_.NextId();
  Json invoke{{"t", "si"}, {"op", op}, {"kind", kind}, {"key", std::string(key)}, {"ev", expected}};
  if (record != nullptr) invoke["v"] = ValueJson(*record);
  invoke["at"] = MonotonicNanos();  // taken last: the call starts after this instant
  journal_.Write(invoke.dump());
  const core::StoreResult result = call();
  const core::Nanos done = MonotonicNanos();
  Json complete{{"t", "sc"},
                {"op", op},
                {"status", StoreStatusName(result.status)},
                {"found", result.current.found},
                {"version", result.current.version},
                {"rv", ValueJson(result.current.record)},
                {"at", done}};
  journal_.Write(complete.dump());
  return result;
}

core::StoreResult JournaledStore::Read(std::string_view key, core::Nanos timeout) {
  return Journaled("read", key, 0, nullptr, [&] { return inner_.Read(key, timeout); });
}

core::StoreResult JournaledStore::Create(std::string_view key, const core::LeaseRecord& record,
                                         core::Nanos timeout) {
  return Journaled("create", key, 0, &record, [&] { return inner_.Create(key, record, timeout); });
}

core::StoreResult JournaledStore::CompareAndSet(std::string_view key, std::int64_t expected_version,
                                                const core::LeaseRecord& record, core::Nanos timeout) {
  return Journaled("cas", key, expected_version, &record,
                   [&] { return inner_.CompareAndSet(key, expected_version, record, timeout); });
}

core::LedgerResult JournaledLedger::Commit(const core::SettlementBatch& batch, core::Nanos timeout) {
  const std::int64_t w = journal_.NextId();
  const std::string write_id = inner_.NextWriteId();
  const core::Nanos sent = now_();
  Json line = {{"t", "ls"},
               {"w", w},
               {"write_id", write_id},
               {"token", batch.token},
               {"key", batch.idempotency_key},
               {"window", batch.window},
               {"valid", sent < batch.lease_deadline},
               // How far past its own deadline it sent (the checker's late_ns).
               {"late_ns", sent < batch.lease_deadline ? 0 : sent - batch.lease_deadline}};
  if (wall_env_ != nullptr && wall_env_->WallSeen() != etcd::RealEnv::kNoWallReading) {
    line["wall_seen_ns"] = wall_env_->WallSeen();
  }
  line["at"] = MonotonicNanos();
  journal_.Write(line.dump());
  const core::LedgerResult result = inner_.CommitWithId(batch, write_id, timeout);
  journal_.Write(
      Json{{"t", "lc"}, {"w", w}, {"status", LedgerStatusName(result.status)}, {"at", MonotonicNanos()}}.dump());
  return result;
}

core::LedgerResult JournaledLedger::LastAppliedWindow(core::Nanos timeout) {
  return inner_.LastAppliedWindow(timeout);
}

void JournaledEvents::Emit(const core::LeaseEvent& event) {
  Json json = Json::parse(core::ToJson(event));
  json["t"] = "ev";
  json["at"] = MonotonicNanos();
  journal_.Write(json.dump());
}

}  // namespace leasesim::live
