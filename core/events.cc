#include "core/events.h"

#include <nlohmann/json.hpp>

namespace leasesim::core {

const char* EventKindName(EventKind kind) {
  switch (kind) {
    case EventKind::kAcquired: return "acquired";
    case EventKind::kRenewed: return "renewed";
    case EventKind::kRenewFailed: return "renew_failed";
    case EventKind::kDemoted: return "demoted";
    case EventKind::kReleased: return "released";
    case EventKind::kObservedLeader: return "observed_leader";
    case EventKind::kSettled: return "settled";
    case EventKind::kFenced: return "fenced";
    case EventKind::kLeadingStarted: return "leading_started";
    case EventKind::kLeadingStopped: return "leading_stopped";
    case EventKind::kJobStep: return "job_step";
    case EventKind::kNewLeaderReported: return "new_leader_reported";
    case EventKind::kMetric: return "metric";
  }
  return "unknown";
}

const char* DemotionReasonName(DemotionReason reason) {
  switch (reason) {
    case DemotionReason::kDeadline: return "deadline";
    case DemotionReason::kConflict: return "conflict";
    case DemotionReason::kStoreUnavailable: return "store_unavailable";
    case DemotionReason::kPauseDetected: return "pause_detected";
    case DemotionReason::kFenced: return "fenced";
    case DemotionReason::kReleased: return "released";
  }
  return "unknown";
}

std::string ToJson(const LeaseEvent& event) {
  nlohmann::ordered_json json;
  json["event"] = EventKindName(event.kind);
  json["holder"] = event.holder;
  json["term"] = event.term;
  json["version"] = event.version;
  json["monotonic_ns"] = event.monotonic_ns;
  if (event.boot_ns != 0) json["boot_ns"] = event.boot_ns;
  if (event.valid_until_ns != 0) json["valid_until_ns"] = event.valid_until_ns;
  if (!event.reason.empty()) json["reason"] = event.reason;
  if (!event.other.empty()) json["other"] = event.other;
  if (event.window >= 0) json["window"] = event.window;
  if (event.kind == EventKind::kMetric) json["metric"] = event.metric;
  if (event.kind == EventKind::kMetric || event.kind == EventKind::kJobStep) json["value"] = event.value;
  return json.dump();
}

}  // namespace leasesim::core
