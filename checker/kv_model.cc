#include "checker/kv_model.h"

#include <bit>
#include <cassert>
#include <map>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "checker/text_util.h"

namespace leasesim::checker {
namespace {

// The search-side model for one key. A state is the id of a string, kept
// as a chain "parent state + one appended piece" with its length and a
// polynomial hash, so an append costs O(1) and never copies the string.
// Ids are canonical (equal ids <=> equal strings): transitions are found in
// a table keyed by the hash of the resulting content; an entry for the same
// (parent, piece) is the answer, an entry with the same content reached
// another way is confirmed byte for byte. So the memo cache and a get's check
// compare integers, and hash collisions cost time, never correctness.
class KvKeyModel {
 public:
  using State = std::uint32_t;
  struct Op {
    KvOp::Kind kind;
    Outcome outcome;
    std::uint32_t state;  // the state whose content is the op's value
    std::uint32_t piece;  // the op's value as a piece
    const KvOp* source;
  };

  KvKeyModel() {
    nodes_.push_back(Node{0, 0, 0, 0});  // state 0: ""
    table_.assign(1024, Entry{0, 0, 0, kNone});
    assert(std::has_single_bit(table_.size()));  // probes wrap with a mask
  }

  // Compiles an operation: interns its value as a piece and as a state.
  Op Compile(const KvOp& op) {
    const std::uint32_t piece = InternPiece(op.value);
    if (op.kind == KvOp::Kind::kGet && op.outcome == Outcome::kOk) {
      Piece& p = pieces_[piece];
      if (p.prefix_hashes.empty()) {
        std::uint64_t hash = 0;
        p.prefix_hashes.push_back(0);
        for (char c : p.text) {
          hash = hash * kBase + static_cast<unsigned char>(c) + 1;
          p.prefix_hashes.push_back(hash);
        }
      }
      assert(p.prefix_hashes.size() == p.text.size() + 1);  // "" and every longer prefix
    }
    const Op compiled{op.kind, op.outcome, Append(0, piece), piece, &op};
    // The value as a state: its content, reached from "" in one append.
    assert(nodes_[compiled.state].length == op.value.size());
    return compiled;
  }

  State Init() const { return 0; }

  bool Step(State state, const Op& op, State& next) {
    assert(state < nodes_.size());
    assert(op.state < nodes_.size());
    switch (op.kind) {
      case KvOp::Kind::kGet:
        next = state;
        return op.outcome != Outcome::kOk || state == op.state;
      case KvOp::Kind::kPut:
        next = op.state;
        return true;
      case KvOp::Kind::kAppend:
        next = Append(state, op.piece);
        return true;
    }
    return false;
  }

  static bool Equal(State a, State b) { return a == b; }
  static std::uint64_t Hash(State state) { return state; }
  bool ReadOnly(const Op& op) const { return op.kind == KvOp::Kind::kGet; }

  // Pruning hint: only puts shrink or replace the value; appends only
  // extend it, so a get must read a string the current value is a prefix of.
  bool Resets(const Op& op) const { return op.kind == KvOp::Kind::kPut; }
  bool Unreachable(State state, const Op& op) const {
    if (op.kind != KvOp::Kind::kGet || op.outcome != Outcome::kOk) return false;
    assert(state < nodes_.size());
    const Node& node = nodes_[state];
    const std::vector<std::uint64_t>& prefixes = pieces_[op.piece].prefix_hashes;
    assert(!prefixes.empty());  // Compile hashed every prefix of a get's value
    // Equal prefixes have equal hashes, so a mismatch proves "not a prefix".
    return node.length >= prefixes.size() || prefixes[node.length] != node.hash;
  }

  std::string DescribeOp(const Op& op) const { return DescribeKvOp(*op.source); }
  std::string DescribeState(State state) const {
    std::string text;
    Materialize(state, text);
    return "\"" + text + "\"";
  }

 private:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFU;
  static constexpr std::uint64_t kBase = 0x100000001B3ULL;

  struct Node {
    std::uint32_t parent;
    std::uint32_t piece;
    std::uint64_t length;
    std::uint64_t hash;
  };
  struct Piece {
    std::string text;
    std::uint64_t hash;
    std::uint64_t power;                       // kBase^length, to shift a prefix's hash
    std::vector<std::uint64_t> prefix_hashes;  // gets only: hash of every prefix
  };
  // A transition (parent, piece) -> id, filed under the hash of its result.
  struct Entry {
    std::uint64_t hash;
    std::uint32_t parent;
    std::uint32_t piece;
    std::uint32_t id;  // kNone = empty slot
  };

  std::uint32_t InternPiece(const std::string& text) {
    auto [it, inserted] = piece_ids_.emplace(text, static_cast<std::uint32_t>(pieces_.size()));
    if (inserted) {
      Piece piece{text, 0, 1, {}};
      for (char c : text) {
        piece.hash = piece.hash * kBase + static_cast<unsigned char>(c) + 1;
        piece.power *= kBase;
      }
      pieces_.push_back(std::move(piece));
    }
    return it->second;
  }

  State Append(State state, std::uint32_t piece) {
    assert(state < nodes_.size());
    assert(piece < pieces_.size());
    // At most half full, so a probe always meets an empty slot and ends.
    assert(entries_ * 2 <= table_.size());
    const Piece& p = pieces_[piece];
    if (p.text.empty()) return state;
    const Node& base = nodes_[state];
    const std::uint64_t hash = base.hash * p.power + p.hash;
    const std::uint64_t length = base.length + p.text.size();
    const std::size_t mask = table_.size() - 1;
    std::size_t slot = static_cast<std::size_t>((hash ^ (hash >> 29)) * 0x9E3779B97F4A7C15ULL >> 20) & mask;
    std::uint32_t same_content = kNone;
    for (; table_[slot].id != kNone; slot = (slot + 1) & mask) {
      const Entry& entry = table_[slot];
      if (entry.hash != hash) continue;
      if (entry.parent == state && entry.piece == piece) return entry.id;
      if (same_content == kNone && nodes_[entry.id].length == length &&
          SameContent(entry.id, state, piece)) {
        same_content = entry.id;
      }
    }
    // A transition not seen before: file it (under an existing id when the
    // content is already known).
    std::uint32_t id = same_content;
    if (id == kNone) {
      assert(nodes_.size() < kNone);  // an id is never the empty mark
      id = static_cast<std::uint32_t>(nodes_.size());
      nodes_.push_back(Node{state, piece, length, hash});
    }
    table_[slot] = Entry{hash, state, piece, id};
    if (++entries_ * 2 > table_.size()) Grow();
    // Canonical ids: the id found or made holds exactly this content.
    assert(nodes_[id].length == length);
    assert(nodes_[id].hash == hash);
    return id;
  }

  bool SameContent(std::uint32_t existing, State state, std::uint32_t piece) {
    assert(existing < nodes_.size());
    Materialize(existing, scratch_a_);
    Materialize(state, scratch_b_);
    scratch_b_ += pieces_[piece].text;
    return scratch_a_ == scratch_b_;
  }

  void Grow() {
    std::vector<Entry> table(table_.size() * 2, Entry{0, 0, 0, kNone});
    const std::size_t mask = table.size() - 1;
    for (const Entry& entry : table_) {
      if (entry.id == kNone) continue;
      std::size_t slot =
          static_cast<std::size_t>((entry.hash ^ (entry.hash >> 29)) * 0x9E3779B97F4A7C15ULL >> 20) & mask;
      while (table[slot].id != kNone) slot = (slot + 1) & mask;
      table[slot] = entry;
    }
    table_.swap(table);
    assert(std::has_single_bit(table_.size()));
    assert(entries_ * 2 <= table_.size());
  }

  void Materialize(State state, std::string& out) const {
    chain_.clear();
    for (State s = state; s != 0; s = nodes_[s].parent) chain_.push_back(nodes_[s].piece);
    out.clear();
    for (auto it = chain_.rbegin(); it != chain_.rend(); ++it) out += pieces_[*it].text;
    assert(out.size() == nodes_[state].length);  // the chain spells the whole value
  }

  std::vector<Node> nodes_;
  std::vector<Piece> pieces_;
  absl::flat_hash_map<std::string, std::uint32_t> piece_ids_;  // lookups only
  std::vector<Entry> table_;
  std::size_t entries_ = 0;
  std::string scratch_a_, scratch_b_;
  mutable std::vector<std::uint32_t> chain_;
};

}  // namespace

std::string DescribeKvOp(const KvOp& op) {
  std::string text = "process " + std::to_string(op.process) + "'s ";
  switch (op.kind) {
    case KvOp::Kind::kGet:
      text += "get " + op.key;
      if (op.outcome == Outcome::kOk) text += " -> \"" + op.value + "\"";
      break;
    case KvOp::Kind::kPut:
      text += "put " + op.key + " \"" + op.value + "\"";
      break;
    case KvOp::Kind::kAppend:
      text += "append " + op.key + " \"" + op.value + "\"";
      break;
  }
  if (op.outcome == Outcome::kUnknown) text += " (outcome unknown)";
  return text + LineSpanText(op.invoke_line, op.return_line);
}

LinResult CheckKv(std::span<const KvOp> ops, const LinOptions& options) {
  const auto informative = [](const KvOp& op) {
    if (op.outcome == Outcome::kFail) return false;                      // no effect
    return op.kind != KvOp::Kind::kGet || op.outcome == Outcome::kOk;  // else no information
  };
  const auto to_lin = [](KvKeyModel& model, const KvOp& op, std::size_t i) {
    return LinOp<KvKeyModel::Op>{model.Compile(op), op.call_ns,
                                 op.outcome == Outcome::kUnknown ? kNeverNs : op.return_ns,
                                 static_cast<std::int64_t>(i)};
  };
  std::vector<LinPartition<KvKeyModel>> partitions = PartitionsByKey<KvKeyModel>(ops, informative, to_lin);
  return SearchPartitions(partitions, options);
}

}  // namespace leasesim::checker
