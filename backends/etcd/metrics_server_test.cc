// The operations endpoint: /metrics and /healthz over HTTP on the bound
// address, the exposition checked by promtool, and /healthz turning
// unhealthy when a leader is stuck past its deadline.

#include "backends/etcd/metrics_server.h"

#include <httplib.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "backends/etcd/lease_exposition.h"
#include "backends/etcd/etcd_test_values.h"
#include "backends/etcd/lease_health.h"
#include "backends/etcd/memory_backends_test_util.h"
#include "backends/etcd/prometheus_text.h"
#include "backends/etcd/real_env.h"
#include "base/units.h"
#include "core/lease_node.h"

namespace leasesim::etcd {
namespace {

using test_values::FastTiming;
using base::Millis;
using base::kNanosPerMilli;

// Swallows protocol events where a test needs a sink but not the events.
class NullSink final : public core::EventSink {
 public:
  void Emit(const core::LeaseEvent&) override {}
};

core::SettlementConfig FastSettlement(core::Nanos wall_now) {
  return core::SettlementConfig{.period = Millis(20),
                                .schedule_epoch_wall = wall_now - Millis(100),
                                .batch_items = 2,
                                .poll = Millis(5),
                                .request_timeout = Millis(40)};
}

TEST(PrometheusText, EscapesLabelValuesAndFormatsNumbersExactly) {
  EXPECT_EQ(EscapeLabelValue("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
  EXPECT_EQ(FormatNumber(0.0025), "0.0025");
  EXPECT_EQ(FormatNumber(5.0), "5");
  EXPECT_EQ(FormatNumber(1e300), "1e+300");
  PrometheusText out;
  out.Family("x_seconds", "histogram", "help with \\ and\nnewline");
  out.Histogram("x_seconds", {{"lease", "q\"uote"}}, {0.1, 1}, {2, 0, 3}, 7.5);
  EXPECT_EQ(out.text(),
            "# HELP x_seconds help with \\\\ and\\nnewline\n# TYPE x_seconds histogram\n"
            "x_seconds_bucket{lease=\"q\\\"uote\",le=\"0.1\"} 2\n"
            "x_seconds_bucket{lease=\"q\\\"uote\",le=\"1\"} 2\n"
            "x_seconds_bucket{lease=\"q\\\"uote\",le=\"+Inf\"} 5\n"
            "x_seconds_sum{lease=\"q\\\"uote\"} 7.5\n"
            "x_seconds_count{lease=\"q\\\"uote\"} 5\n");
}

TEST(MetricsServer, ServesMetricsAndHealthOnTheConfiguredAddressOnly) {
  MetricsServer server({.bind_address = "127.0.0.2",
                        .metrics = [] { return std::string("leasesim_is_leader{lease=\"l\"} 1\n"); },
                        .health = [] { return HealthStatus{true, "ok: leading l"}; }});
  ASSERT_TRUE(server.ok()) << server.error();
  httplib::Client client("127.0.0.2", server.port());
  httplib::Result metrics = client.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
  EXPECT_EQ(metrics->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(metrics->body, "leasesim_is_leader{lease=\"l\"} 1\n");
  httplib::Result health = client.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(health->body, "ok: leading l\n");
  EXPECT_EQ(client.Get("/other")->status, 404);
  // Bound to 127.0.0.2 only: the same port on 127.0.0.1 has no listener.
  httplib::Client elsewhere("127.0.0.1", server.port());
  elsewhere.set_connection_timeout(std::chrono::milliseconds(300));
  EXPECT_FALSE(elsewhere.Get("/metrics"));
}

TEST(MetricsServer, AnAddressThatIsNotLocalIsAClearError) {
  MetricsServer server({.bind_address = "192.0.2.1", .metrics = [] { return std::string(); }});
  EXPECT_FALSE(server.ok());
  EXPECT_NE(server.error().find("cannot bind 192.0.2.1:0"), std::string::npos) << server.error();
}

// A node leading for a while on real threads, and its exposition.
std::string ExpositionOfARunningNode(const std::string& lease) {
  MemoryStore shared;
  StoreView view(shared);
  MemoryLedger ledger;
  NullSink sink;
  RealEnv env(view, ledger, sink);
  core::LeaseNode node(env, {.key = lease, .identity = "n1#1", .timing = FastTiming()},
                       FastSettlement(env.WallNow()));
  node.Start();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::string text;
  env.WithCoreLock([&] {
    text = RenderLeaseExposition(node.metrics(), node.tap(), lease);
    // The histogram counts exactly the renewals, with the same durations
    // to within the clock reads around the call.
    EXPECT_EQ(node.tap().renewal_durations().count, node.metrics().renewals_ok);
    EXPECT_NEAR(static_cast<double>(node.tap().renewal_durations().sum_ns),
                static_cast<double>(node.metrics().renewal_latency_ns_sum),
                static_cast<double>(node.metrics().renewals_ok) * 1e6);
  });
  env.Stop();
  return text;
}

TEST(LeaseExposition, FollowsPrometheusConventionsAndPromtoolAcceptsIt) {
  const std::string lease = "billing/lease/\"settle\"\\x";
  const std::string text = ExpositionOfARunningNode(lease);
  EXPECT_NE(text.find("leader_election_master_status{name=\"billing/lease/\\\"settle\\\"\\\\x\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("# TYPE leasesim_renewal_duration_seconds histogram\n"), std::string::npos);
  EXPECT_NE(text.find("leasesim_renewal_duration_seconds_bucket{lease=\"billing/lease/\\\"settle\\\"\\\\x\",le=\"+Inf\"}"),
            std::string::npos);
  EXPECT_EQ(text.find("_ns"), std::string::npos);  // seconds, never nanoseconds
  if (std::system("command -v promtool >/dev/null 2>&1") != 0) GTEST_SKIP() << "promtool absent (Debian: prometheus)";
  const std::string path = ::testing::TempDir() + "exposition.prom";
  std::ofstream(path) << text;
  const std::string command = "promtool check metrics < " + path + " > " + path + ".out 2>&1";
  const int rc = std::system(command.c_str());
  std::ifstream out(path + ".out");
  const std::string complaints((std::istreambuf_iterator<char>(out)), std::istreambuf_iterator<char>());
  EXPECT_EQ(rc, 0) << complaints;
  EXPECT_EQ(complaints, "");
}

// Keeps every protocol event, for a test to read back.
class RecordingSink final : public core::EventSink {
 public:
  void Emit(const core::LeaseEvent& event) override { events.push_back(event); }
  std::vector<core::LeaseEvent> events;
};

core::LeaseEvent Event(core::EventKind kind, core::Nanos valid_until = 0) {
  core::LeaseEvent event;
  event.kind = kind;
  event.holder = "n1#1";
  event.term = 1;
  event.valid_until_ns = valid_until;
  return event;
}

TEST(LeaseHealth, ItsLeaderAnswerIsTheElectorsBeliefAndEachChangeIsReported) {
  MemoryStore store;
  RecordingSink sink;
  LeaseHealth health(sink, store, {.lease = "l", .identity = "n1#1", .timeout = Millis(100)});
  health.Emit(Event(core::EventKind::kAcquired, Millis(1'000)));
  EXPECT_EQ(health.Check(Millis(500)).message, "ok: leading l");
  ASSERT_EQ(sink.events.size(), 2u);  // passed on, then the answer's change
  EXPECT_EQ(std::string(sink.events[1].metric), "healthz_leading");
  EXPECT_EQ(sink.events[1].value, 1);
  health.Emit(Event(core::EventKind::kRenewed, Millis(1'000)));
  EXPECT_EQ(sink.events.size(), 3u);  // no change, no sample
  health.Emit(Event(core::EventKind::kDemoted));
  ASSERT_EQ(sink.events.size(), 5u);
  EXPECT_EQ(sink.events[4].kind, core::EventKind::kMetric);
  EXPECT_EQ(sink.events[4].value, 0);
  // The record it last saw still names it: healthy within the timeout, but
  // not leading (it was "ok: leading" before the leader answer was judged).
  const HealthStatus after = health.Check(Millis(1'050));
  EXPECT_TRUE(after.healthy);
  EXPECT_EQ(after.message, "ok: not leading l (the record last seen still names it)");
}

// A leader on real threads behind LeaseHealth, and its /healthz.
struct WatchedNode {
  explicit WatchedNode(core::Nanos timeout)
      : view(shared),
        health(sink, view, {.lease = "lease/job", .identity = "n1#1", .timeout = timeout}),
        env(health.store(), ledger, health),
        node(env, {.key = "lease/job", .identity = "n1#1", .timing = FastTiming()}, FastSettlement(env.WallNow())),
        server({.metrics = [] { return std::string(); },
                .health = [this] { return health.Check(RealEnv::BootClockNanos()); }}),
        client("127.0.0.1", server.port()) {}
  int Status() {
    httplib::Result result = client.Get("/healthz");
    last_body = result ? result->body : "no answer";
    return result ? result->status : 0;
  }
  MemoryStore shared;
  StoreView view;
  MemoryLedger ledger;
  NullSink sink;
  LeaseHealth health;
  RealEnv env;
  core::LeaseNode node;
  MetricsServer server;
  httplib::Client client;
  std::string last_body;
};

TEST(LeaseHealth, HealthzTurnsUnhealthyWhenALeadersRenewalHangsPastItsDeadlineAndRecovers) {
  WatchedNode w(/*timeout=*/100 * kNanosPerMilli);
  ASSERT_TRUE(w.server.ok()) << w.server.error();
  EXPECT_EQ(w.Status(), 200);  // not leading yet: healthy
  w.node.Start();
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  EXPECT_EQ(w.Status(), 200) << w.last_body;  // leading, renewing
  w.view.hang_ms = 800;  // the next renewal hangs far past the deadline (250 ms) + timeout (100 ms)
  std::this_thread::sleep_for(std::chrono::milliseconds(550));
  EXPECT_EQ(w.Status(), 503);
  EXPECT_NE(w.last_body.find("leader failed to renew lease lease/job"), std::string::npos) << w.last_body;
  w.view.hang_ms = 0;  // the call returns; the elector re-reads its record and renews again
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  EXPECT_EQ(w.Status(), 200) << w.last_body;
  w.env.Stop();
}

// Asks /healthz every 10 ms until it answers `status` with `text` in the
// body, at most 3 s: a fixed sleep let a loaded machine's scheduler decide
// (the leader had not acquired within 150 ms in 1 of 4 niced suite runs).
bool AnswersWithin(WatchedNode& w, int status, const std::string& text) {
  for (int i = 0; i < 300; ++i) {
    if (w.Status() == status && w.last_body.find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST(LeaseHealth, ALeaderCutOffFromTheStoreIsUnhealthyUntilItSeesTheRecordAgain) {
  WatchedNode w(/*timeout=*/100 * kNanosPerMilli);
  ASSERT_TRUE(w.server.ok()) << w.server.error();
  w.node.Start();
  ASSERT_TRUE(AnswersWithin(w, 200, "ok: leading")) << w.last_body;
  w.view.down = true;  // demotes itself at its deadline, but cannot tell the record anything
  const auto down_at = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const int early = w.Status();
  // Within deadline (250 ms) + timeout (100 ms) of the last renewal it is
  // healthy still; judged only when the sleep did not overrun that window.
  if (std::chrono::steady_clock::now() - down_at < std::chrono::milliseconds(200)) {
    EXPECT_EQ(early, 200) << w.last_body;
  }
  EXPECT_TRUE(AnswersWithin(w, 503, "the record last seen still names it")) << w.last_body;
  w.view.down = false;
  EXPECT_TRUE(AnswersWithin(w, 200, "ok:")) << w.last_body;
  w.env.Stop();
}

}  // namespace
}  // namespace leasesim::etcd
