//===- LayoutCommand.cpp - tilec layout: look at layouts ------------------===//
//
//   tilec layout show SPEC [--shape=AxB]       bases and the element table
//   tilec layout apply SPEC IN=V ...           one input to coordinates
//   tilec layout compose SPEC OUTER            OUTER ∘ SPEC
//   tilec layout invert-compose SPEC OUTER     C with OUTER(C(x)) = SPEC(x)
//   tilec layout conflicts DIST SHARED --bits=N
//                                              wavefronts of DIST into SHARED
//
// SPEC is a #tile.linear<...> or #tile.shared<...> attribute (with --shape)
// or a named constructor; see docs/LAYOUT.md.
//
//===----------------------------------------------------------------------===//

#include "LayoutCommand.h"

#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Layout/BankConflicts.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <numeric>
#include <set>

using namespace mlir;
using namespace tilec;
using LL = LinearLayout;

namespace {

struct Error {
  std::string message;
};

std::vector<int64_t> parseInts(StringRef s) {
  std::vector<int64_t> v;
  s = s.trim().trim("[]");
  SmallVector<StringRef> parts;
  s.split(parts, ',', -1, false);
  for (StringRef p : parts) {
    int64_t x;
    if (p.trim().getAsInteger(10, x))
      throw Error{"expected an integer, found '" + p.trim().str() + "'"};
    v.push_back(x);
  }
  return v;
}

std::vector<int64_t> parseShape(StringRef s) {
  std::vector<int64_t> v;
  SmallVector<StringRef> parts;
  s.split(parts, 'x');
  for (StringRef p : parts) {
    int64_t x;
    if (p.getAsInteger(10, x) || x <= 0 || (x & (x - 1)))
      throw Error{"expected a shape of powers of two like 64x64, found '" +
                  s.str() + "'"};
    v.push_back(x);
  }
  int64_t bits = 0;
  for (int64_t x : v)
    bits += llvm::Log2_64(x);
  if (bits > 30)
    throw Error{"--shape " + s.str() + " has more than 2^30 elements"};
  return v;
}

/// name(key=value, key=[a,b], ...)
LL parseConstructor(StringRef spec) {
  size_t open = spec.find('(');
  if (open == StringRef::npos || !spec.ends_with(")"))
    throw Error{"expected a layout attribute or name(args), found '" +
                spec.str() + "'"};
  StringRef name = spec.take_front(open).trim();
  StringRef body = spec.drop_front(open + 1).drop_back();
  std::map<std::string, std::vector<int64_t>> args;
  // Split on commas outside brackets.
  int depth = 0;
  size_t start = 0;
  auto take = [&](size_t end) {
    StringRef item = body.slice(start, end).trim();
    if (item.empty())
      return;
    auto [k, v] = item.split('=');
    if (v.empty())
      throw Error{"expected key=value, found '" + item.str() + "'"};
    args[k.trim().str()] = parseInts(v);
  };
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] == '[')
      ++depth;
    else if (body[i] == ']')
      --depth;
    else if (body[i] == ',' && depth == 0) {
      take(i);
      start = i + 1;
    }
  }
  take(body.size());
  auto get = [&](const char *k) -> std::vector<int64_t> {
    auto it = args.find(k);
    if (it == args.end())
      throw Error{name.str() + ": missing argument '" + k + "'"};
    return it->second;
  };
  auto getOr = [&](const char *k, std::vector<int64_t> d) {
    auto it = args.find(k);
    return it == args.end() ? d : it->second;
  };
  static const std::set<std::string> known = {
      "blocked", "coalesced", "mma_acc", "mma_a", "mma_b", "wgmma_acc",
      "wgmma_a", "tmem32x32b", "tmem16x64b", "tmem16x128b", "tmem16x256b",
      "shared", "swizzled", "nvmma"};
  if (!known.count(name.str()))
    throw Error{"unknown layout '" + name.str() +
                "'; expected blocked, coalesced, mma_acc, mma_a, mma_b, "
                "wgmma_acc, wgmma_a, tmem32x32b, tmem16x64b, tmem16x128b, "
                "tmem16x256b, shared, "
                "swizzled or nvmma"};
  // The arguments each constructor takes; anything else is a mistake.
  static const std::map<std::string, std::set<std::string>> keys = {
      {"blocked", {"shape", "spt", "tpw", "wpc", "order"}},
      {"coalesced", {"shape", "bits", "warps", "order"}},
      {"mma_acc", {"shape", "warps"}},
      {"mma_a", {"shape", "warps", "bits"}},
      {"mma_b", {"shape", "warps", "bits"}},
      {"wgmma_acc", {"shape", "groups", "groups_n"}},
      {"wgmma_a", {"shape", "groups", "groups_n"}},
      {"tmem32x32b", {"shape", "warps"}},
      {"tmem16x64b", {"shape", "warps"}},
      {"tmem16x128b", {"shape", "warps"}},
      {"tmem16x256b", {"shape", "warps"}},
      {"shared", {"shape", "order"}},
      {"swizzled", {"shape", "order", "vec", "per_phase", "max_phase"}},
      {"nvmma", {"shape", "order", "bits", "swizzle"}}};
  for (const auto &[k, v] : args)
    if (!keys.at(name.str()).count(k))
      throw Error{name.str() + ": unknown argument '" + k + "'"};
  auto pow2 = [](int64_t v) { return v > 0 && (v & (v - 1)) == 0; };
  std::vector<int64_t> shape = get("shape");
  if (shape.empty() || shape.size() > 4)
    throw Error{name.str() + ": shape has 1 to 4 dims"};
  for (int64_t d : shape)
    if (!pow2(d) || d > (int64_t(1) << 20))
      throw Error{"shape dims must be powers of two (up to 2^20)"};
  size_t rank = shape.size();
  // A list of one entry per dim, each a positive power of two.
  auto perDim = [&](const char *k) {
    std::vector<int64_t> v = get(k);
    if (v.size() != rank)
      throw Error{name.str() + ": '" + k + "' needs " + std::to_string(rank) +
                  " values, one per dim"};
    for (int64_t x : v)
      if (!pow2(x))
        throw Error{name.str() + ": '" + k + "' values are powers of two"};
    return v;
  };
  // One value, from `allowed` if given, else a positive power of two.
  auto one = [&](const char *k, std::optional<int64_t> dflt,
                 std::vector<int64_t> allowed = {}) {
    std::vector<int64_t> v = dflt ? getOr(k, {*dflt}) : get(k);
    if (v.size() != 1)
      throw Error{name.str() + ": '" + k + "' is one value"};
    bool ok = allowed.empty() ? pow2(v[0])
                              : llvm::is_contained(allowed, v[0]);
    if (!ok) {
      std::string want = "a power of two";
      if (!allowed.empty()) {
        want = "one of";
        for (int64_t a : allowed)
          want += " " + std::to_string(a);
      }
      throw Error{name.str() + ": '" + k + "' must be " + want + ", found " +
                  std::to_string(v[0])};
    }
    return v[0];
  };
  std::vector<int64_t> order = getOr("order", {});
  if (order.empty())
    for (int d = shape.size() - 1; d >= 0; --d)
      order.push_back(d);
  std::vector<int64_t> sorted = order, dims(rank);
  llvm::sort(sorted);
  std::iota(dims.begin(), dims.end(), 0);
  if (sorted != dims)
    throw Error{name.str() + ": 'order' is a permutation of the dims 0.." +
                std::to_string(rank - 1)};
  if (name == "blocked") {
    std::vector<int64_t> tpw = perDim("tpw");
    int64_t lanes = 1;
    for (int64_t t : tpw)
      lanes *= t;
    if (lanes != 32)
      throw Error{"blocked: 'tpw' covers the 32 lanes of a warp (its product "
                  "is " + std::to_string(lanes) + ")"};
    return LL::blocked(shape, perDim("spt"), tpw, perDim("wpc"), order);
  }
  if (name == "coalesced")
    return LL::coalesced(shape, one("bits", std::nullopt, {8, 16, 32}),
                         one("warps", 4), order[0]);
  if (shape.size() != 2 && name != "swizzled" && name != "shared")
    throw Error{name.str() + " needs a 2-D shape"};
  if (name == "mma_acc") {
    auto w = perDim("warps");
    return LL::mmaAccumulator(shape, w[0], w[1]);
  }
  if (name == "mma_a" || name == "mma_b") {
    auto w = perDim("warps");
    return LL::mmaOperand(name == "mma_a" ? 0 : 1, shape,
                          one("bits", 16, {8, 16}), w[0], w[1]);
  }
  if (name == "wgmma_acc")
    return LL::wgmmaAccumulator(shape, one("groups", 1), one("groups_n", 1));
  if (name == "wgmma_a")
    return LL::wgmmaOperandA(shape, one("groups", 1), one("groups_n", 1));
  if (name == "tmem32x32b")
    return LL::tmem32x32b(shape, one("warps", 4, {4, 8, 16}));
  if (name == "tmem16x64b")
    return LL::tmem16x64b(shape, one("warps", 4, {4}));
  if (name == "tmem16x128b")
    return LL::tmem16x128b(shape, one("warps", 4, {4}));
  if (name == "tmem16x256b")
    return LL::tmem16x256b(shape, one("warps", 4, {4}));
  if (name == "shared")
    return LL::sharedUnswizzled(shape, order);
  if (name == "swizzled")
    return LL::sharedSwizzled(shape, order, one("vec", std::nullopt),
                              one("per_phase", std::nullopt),
                              one("max_phase", std::nullopt));
  if (name == "nvmma")
    return LL::sharedNVMMA(shape, order, one("bits", 16, {8, 16, 32}),
                           one("swizzle", std::nullopt, {0, 32, 64, 128}));
  throw Error{"unknown layout '" + name.str() + "'"};
}

/// Throws unless `flat`'s bases (each `shape.size()` coordinates) lie in
/// `shape`: what a layout over `shape` is (LinearLayout asserts it).
void checkBases(ArrayRef<int64_t> flat, const std::vector<int64_t> &shape,
                StringRef what) {
  for (size_t i = 0; i < flat.size(); ++i) {
    int64_t d = i % shape.size();
    if (flat[i] < 0 || flat[i] >= shape[d])
      throw Error{"the layout's " + what.str() + " basis " +
                  std::to_string(i / shape.size()) + " has coordinate " +
                  std::to_string(flat[i]) + " in dim " + std::to_string(d) +
                  ", outside --shape's " + std::to_string(shape[d])};
  }
}

LL parseSpec(StringRef spec, const std::vector<int64_t> &shape,
             MLIRContext &ctx) {
  spec = spec.trim();
  if (!spec.starts_with("#"))
    return parseConstructor(spec);
  if (shape.empty())
    throw Error{"a layout attribute needs --shape=AxB..."};
  std::string err;
  Attribute a;
  {
    ScopedDiagnosticHandler h(&ctx, [&](Diagnostic &d) {
      err = d.str();
      return success();
    });
    a = parseAttribute(spec, &ctx);
  }
  if (!a)
    throw Error{"cannot parse '" + spec.str() + "': " + err};
  if (auto l = dyn_cast<tile::LinearLayoutAttr>(a)) {
    if (l.getRank() != shape.size())
      throw Error{"the layout has rank " + std::to_string(l.getRank()) +
                  ", --shape has " + std::to_string(shape.size())};
    checkBases(l.getRegisterBases(), shape, "register");
    checkBases(l.getLaneBases(), shape, "lane");
    checkBases(l.getWarpBases(), shape, "warp");
    return l.toLayout(shape);
  }
  if (auto s = dyn_cast<tile::SharedLayoutAttr>(a)) {
    if (s.getRank() != shape.size())
      throw Error{"the layout has rank " + std::to_string(s.getRank()) +
                  ", --shape has " + std::to_string(shape.size())};
    checkBases(s.getOffsetBases(), shape, "offset");
    return s.toLayout(shape);
  }
  throw Error{"expected #tile.linear<...> or #tile.shared<...>"};
}

void printBases(const LL &l, llvm::raw_ostream &os) {
  for (auto &[name, bases] : l.getInDims()) {
    os << "  " << name << ":";
    for (auto &c : bases) {
      os << " [";
      llvm::interleaveComma(c, os);
      os << "]";
    }
    os << "\n";
  }
  os << "  ->";
  for (auto &[name, size] : l.getOutDims())
    os << " " << name << "=" << size;
  os << (l.isSurjective() ? "  (covers every element" : "  (does not cover every element")
     << (l.isInjective() ? ", one index each)" : ", some several times)")
     << "\n";
}

/// Which input holds each element: a grid for rank 2, a list otherwise.
void printTable(const LL &l, llvm::raw_ostream &os) {
  std::map<LL::Coords, std::vector<std::string>> holders;
  bool distributed = l.hasInDim("lane") || l.hasInDim("register");
  int64_t total = l.getTotalInDimSize();
  if (total > (1 << 16)) {
    os << "(table omitted: " << total << " inputs)\n";
    return;
  }
  for (int64_t flat = 0; flat < total; ++flat) {
    LL::NamedValues in;
    int64_t rest = flat;
    for (auto &[name, bases] : l.getInDims()) {
      in.push_back({name, rest & ((int64_t(1) << bases.size()) - 1)});
      rest >>= bases.size();
    }
    LL::Coords c;
    for (auto &[n, v] : l.apply(in))
      c.push_back(v);
    std::string label;
    if (distributed) {
      int64_t reg = 0, lane = 0, warp = 0;
      for (auto &[n, v] : in)
        (n == "register" ? reg : n == "lane" ? lane : n == "warp" ? warp : reg) = v;
      label = "T" + std::to_string(warp * 32 + lane) + ":" + std::to_string(reg);
    } else {
      label = std::to_string(in.front().second);
    }
    holders[c].push_back(label);
  }
  std::vector<int64_t> shape;
  for (auto &[n, s] : l.getOutDims())
    shape.push_back(s);
  os << (distributed ? "element -> T<thread = 32*warp + lane>:<register>"
                     : "element -> offset")
     << " (first holder; + where several)\n";
  if (shape.size() == 2 && shape[1] <= 128) {
    for (int64_t r = 0; r < shape[0]; ++r) {
      for (int64_t c = 0; c < shape[1]; ++c) {
        auto it = holders.find({r, c});
        std::string s = it == holders.end() ? "-" : it->second.front();
        if (it != holders.end() && it->second.size() > 1)
          s += "+";
        os << llvm::format("%9s", s.c_str());
      }
      os << "\n";
    }
    return;
  }
  for (auto &[c, h] : holders) {
    os << "  (";
    llvm::interleaveComma(c, os);
    os << "):";
    for (auto &s : h)
      os << " " << s;
    os << "\n";
  }
}

std::vector<int64_t> takeShape(std::vector<std::string> &args) {
  for (auto it = args.begin(); it != args.end(); ++it)
    if (StringRef(*it).starts_with("--shape=")) {
      auto s = parseShape(StringRef(*it).drop_front(8));
      args.erase(it);
      return s;
    }
  return {};
}

int64_t takeInt(std::vector<std::string> &args, StringRef flag, int64_t dflt) {
  for (auto it = args.begin(); it != args.end(); ++it)
    if (StringRef(*it).starts_with(flag)) {
      int64_t v;
      if (StringRef(*it).drop_front(flag.size()).getAsInteger(10, v))
        throw Error{"bad value in '" + *it + "'"};
      args.erase(it);
      return v;
    }
  return dflt;
}

} // namespace

int tilec::runLayoutCommand(ArrayRef<std::string> argv) {
  std::vector<std::string> args(argv.begin(), argv.end());
  // Asked for (--help): to stdout, exit 0; a bad command line: stderr, 1.
  bool help = !args.empty() && (args[0] == "--help" || args[0] == "-h");
  auto usage = [help] {
    (help ? llvm::outs() : llvm::errs())
        << "usage: tilec layout show SPEC [--shape=AxB]\n"
                    "       tilec layout apply SPEC NAME=VALUE... [--shape=AxB]\n"
                    "       tilec layout compose SPEC OUTER [--shape=AxB]\n"
                    "       tilec layout invert-compose SPEC OUTER [--shape=AxB]\n"
                    "       tilec layout conflicts DIST SHARED --bits=N "
                    "[--shape=AxB]\n"
                    "SPEC: #tile.linear<...>, #tile.shared<...> (with "
                    "--shape) or a constructor, e.g.\n"
                    "  \"blocked(shape=[64,64], spt=[1,8], tpw=[8,4], "
                    "wpc=[4,1])\", \"mma_acc(shape=[64,64], warps=[4,1])\",\n"
                    "  \"nvmma(shape=[64,64], bits=16, swizzle=128)\"; see "
                    "docs/LAYOUT.md\n";
    return help ? 0 : 1;
  };
  if (args.empty() || help)
    return usage();
  MLIRContext ctx;
  ctx.loadDialect<tile::TileDialect>();
  try {
    std::vector<int64_t> shape = takeShape(args);
    int64_t bits = takeInt(args, "--bits=", 16);
    std::string cmd = args[0];
    llvm::raw_ostream &os = llvm::outs();
    if (cmd == "show" && args.size() == 2) {
      LL l = parseSpec(args[1], shape, ctx);
      printBases(l, os);
      printTable(l, os);
      return 0;
    }
    if (cmd == "apply" && args.size() >= 2) {
      LL l = parseSpec(args[1], shape, ctx);
      LL::NamedValues in;
      for (size_t i = 2; i < args.size(); ++i) {
        auto [k, v] = StringRef(args[i]).split('=');
        int64_t x;
        if (v.getAsInteger(10, x) || !l.hasInDim(k.str()))
          throw Error{"expected IN=VALUE with an input dim of the layout, "
                      "found '" + args[i] + "'"};
        in.push_back({k.str(), x});
      }
      for (auto &[n, v] : l.apply(in))
        os << n << " = " << v << "\n";
      return 0;
    }
    if ((cmd == "compose" || cmd == "invert-compose") && args.size() == 3) {
      LL a = parseSpec(args[1], shape, ctx), b = parseSpec(args[2], shape, ctx);
      if (cmd == "compose") {
        for (auto &[n, s] : a.getOutDims())
          if (!b.hasInDim(n))
            throw Error{"compose: OUTER has no input dim '" + n + "'"};
        printBases(a.compose(b), os);
        return 0;
      }
      std::optional<LL> c = a.invertAndCompose(b);
      if (!c)
        throw Error{"invert-compose: SPEC reaches elements OUTER does not"};
      printBases(*c, os);
      return 0;
    }
    if (cmd == "conflicts" && args.size() == 3) {
      LL d = parseSpec(args[1], shape, ctx), s = parseSpec(args[2], shape, ctx);
      std::optional<SharedAccess> a = analyzeSharedAccess(d, s, bits);
      if (!a)
        throw Error{"conflicts: the shared layout does not hold every element "
                    "of the distributed one"};
      os << "vector: " << a->vectorElements << " x " << bits << "-bit ("
         << a->vectorElements * std::max<int64_t>(1, bits / 8)
         << " bytes) a thread\n"
         << "instructions a warp: " << a->instructions << "\n"
         << "wavefronts an instruction: " << a->wavefronts << " (ideal "
         << a->idealWavefronts << ")\n"
         << "excess wavefronts a warp: " << a->excessWavefronts() << "\n";
      return 0;
    }
    return usage();
  } catch (const Error &e) {
    llvm::errs() << "tilec layout: error: " << e.message << "\n";
    return 1;
  }
}
