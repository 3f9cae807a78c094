#include "sim/network.h"

#include <gtest/gtest.h>

#include <memory>

namespace leasesim::sim {
namespace {

struct TwoHosts {
  World world{1, false};
  HostId a = world.AddHost({.name = "a"});
  HostId b = world.AddHost({.name = "b"});
  TwoHosts() {
    world.Start(a);
    world.Start(b);
  }
};

TEST(Network, DeliversWithinTheLatencyBounds) {
  TwoHosts hosts;
  Network net(hosts.world, base::Prng(9), {.latency = {.base_ns = Millis(2), .jitter_ns = Millis(3)}});
  std::vector<Nanos> arrivals;
  for (int i = 0; i < 100; ++i) {
    net.Send(hosts.a, hosts.b, kAnyIncarnation, [&] { arrivals.push_back(hosts.world.now()); });
  }
  hosts.world.RunUntil(Seconds(1));
  ASSERT_EQ(arrivals.size(), 100u);
  for (Nanos t : arrivals) {
    EXPECT_GE(t, Millis(2));
    EXPECT_LE(t, Millis(5));
  }
}

TEST(Network, APartitionedMessageNeverArrives) {
  TwoHosts hosts;
  Network net(hosts.world, base::Prng(9), {.latency = {.base_ns = Millis(1)}});
  net.SetBlocked(hosts.a, hosts.b, true);
  int arrived = 0;
  net.Send(hosts.a, hosts.b, kAnyIncarnation, [&] { ++arrived; });
  net.Send(hosts.b, hosts.a, kAnyIncarnation, [&] { ++arrived; });  // one-way: this way is open
  hosts.world.RunUntil(Seconds(1));
  EXPECT_EQ(arrived, 1);
  EXPECT_EQ(net.dropped(), 1u);
}

TEST(Network, APartitionStartingInFlightDropsTheMessage) {
  TwoHosts hosts;
  Network net(hosts.world, base::Prng(9), {.latency = {.base_ns = Millis(10)}});
  int arrived = 0;
  net.Send(hosts.a, hosts.b, kAnyIncarnation, [&] { ++arrived; });
  hosts.world.At(Millis(5), [&] { net.SetBlocked(hosts.a, hosts.b, true); });
  hosts.world.RunUntil(Seconds(1));
  EXPECT_EQ(arrived, 0);
}

TEST(Network, TotalLossDropsEverything) {
  TwoHosts hosts;
  Network net(hosts.world, base::Prng(9), {.latency = {.base_ns = Millis(1)}, .loss_ppm = base::kPpmOne});
  int arrived = 0;
  for (int i = 0; i < 10; ++i) net.Send(hosts.a, hosts.b, kAnyIncarnation, [&] { ++arrived; });
  hosts.world.RunUntil(Seconds(1));
  EXPECT_EQ(arrived, 0);
}

TEST(Network, MessagesToACrashedIncarnationAreDropped) {
  TwoHosts hosts;
  Network net(hosts.world, base::Prng(9), {.latency = {.base_ns = Millis(10)}});
  int arrived = 0;
  net.Send(hosts.a, hosts.b, hosts.world.incarnation(hosts.b), [&] { ++arrived; });
  hosts.world.At(Millis(1), [&] {
    hosts.world.Crash(hosts.b);
    hosts.world.Restart(hosts.b);
  });
  hosts.world.RunUntil(Seconds(1));
  EXPECT_EQ(arrived, 0);
  EXPECT_EQ(hosts.world.incarnation(hosts.b), 2u);
}

TEST(Network, RegionsTakeTheirPairsLatencyAndUnplacedHostsTheDefault) {
  World world{1, false};
  const HostId a = world.AddHost({.name = "a"});
  const HostId b = world.AddHost({.name = "b"});
  const HostId c = world.AddHost({.name = "c"});
  for (HostId h : {a, b, c}) world.Start(h);
  Network net(world, base::Prng(9), {.latency = {.base_ns = Millis(5)}});
  net.SetRegions(2, {{.base_ns = Millis(1)}, {.base_ns = Millis(40)}, {.base_ns = Millis(60)}, {.base_ns = Millis(2)}});
  net.PlaceHost(a, 0);
  net.PlaceHost(b, 1);
  EXPECT_EQ(net.region(a), 0);
  EXPECT_EQ(net.region(c), -1);
  EXPECT_EQ(net.HostsInRegion(1), std::vector<HostId>{b});
  Nanos a_to_b = 0, b_to_a = 0, a_to_c = 0;
  net.Send(a, b, kAnyIncarnation, [&] { a_to_b = world.now(); });
  net.Send(b, a, kAnyIncarnation, [&] { b_to_a = world.now(); });
  net.Send(a, c, kAnyIncarnation, [&] { a_to_c = world.now(); });
  world.RunUntil(Seconds(1));
  EXPECT_EQ(a_to_b, Millis(40));
  EXPECT_EQ(b_to_a, Millis(60));
  EXPECT_EQ(a_to_c, Millis(5));
}

TEST(Network, ADuplicatedMessageRunsItsClosureTwiceAndFreesItOnce) {
  TwoHosts hosts;
  Network net(hosts.world, base::Prng(9), {.latency = {.base_ns = Millis(1)}, .duplicate_ppm = base::kPpmOne});
  auto payload = std::make_shared<int>(0);
  net.Send(hosts.a, hosts.b, kAnyIncarnation, [payload] { ++*payload; });
  hosts.world.RunUntil(Seconds(1));
  EXPECT_EQ(*payload, 2);
  EXPECT_EQ(net.duplicated(), 1u);
  EXPECT_EQ(payload.use_count(), 1);  // nothing of the message is left behind
}

}  // namespace
}  // namespace leasesim::sim
