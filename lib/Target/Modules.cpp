//===- Modules.cpp - a bundle's kernels in several machine-code modules ---===//
//
// ptxas's time per kernel grows with the module (7.0 ms a kernel in a
// module of 1,000, 8.4 in one of 10,000), and one module is one ptxas
// process on one core. A bundle of many kernels is therefore compiled as
// several modules: kernel families (a kernel with its variants and its
// plain twin) are packed in order into groups of about `perModule` kernels
// (a larger family is cut into near-equal runs);
// each group is cut out of the LLVM-dialect module with the functions and
// globals it reaches, and translated, optimized, emitted and assembled on
// its own thread. The split depends on the kernels alone (never on the
// machine's cores), so a bundle's bytes do not depend on where it was made.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/Target.h"

#include <chrono>

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <optional>

using namespace mlir;
using namespace tilec;

void tilec::markLazyMembers(MutableArrayRef<KernelInfo> kernels) {
  llvm::StringSet<> derived;
  for (const KernelInfo &k : kernels) {
    for (const std::string &v : k.variants)
      derived.insert(v);
    if (!k.plainVariant.empty())
      derived.insert(k.plainVariant);
  }
  for (KernelInfo &k : kernels)
    k.lazy = derived.contains(k.name);
}

unsigned tilec::assignModules(MutableArrayRef<KernelInfo> kernels,
                              unsigned perModule) {
  if (kernels.empty())
    return 1;
  if (!perModule) // one module: every kernel assembled
    for (KernelInfo &k : kernels)
      k.lazy = false;
  llvm::StringMap<unsigned> index;
  for (auto [i, k] : llvm::enumerate(kernels))
    index[k.name] = i;
  // Families: a kernel, its variants and its plain twin (and theirs).
  llvm::EquivalenceClasses<unsigned> families;
  for (auto [i, k] : llvm::enumerate(kernels)) {
    families.insert(i);
    auto join = [&](const std::string &other) {
      auto it = index.find(other);
      if (it != index.end())
        families.unionSets(unsigned(i), it->second);
    };
    join(k.plainVariant);
    for (const std::string &v : k.variants)
      join(v);
  }
  // Families in order of their first kernel, packed whole into modules of
  // at most `perModule` kernels. A family larger than that (a GEMM with its
  // tile-shape variants and plain twin: 11 kernels) is cut into the fewest
  // near-equal runs of its members that fit, each a module of its own, so
  // that even a one-kernel program is compiled on several threads.
  unsigned modules = 0, filled = 0; // modules used so far; kernels in the last
  // A family's lazy kernels leave it: each is a module of its own, placed
  // after its family's.
  std::vector<std::vector<unsigned>> members(kernels.size()),
      lazy(kernels.size());
  for (unsigned i = 0; i < kernels.size(); ++i)
    (kernels[i].lazy ? lazy : members)[families.getLeaderValue(i)].push_back(i);
  auto placeLazy = [&](unsigned leader) {
    for (unsigned k : lazy[leader])
      kernels[k].module = modules++;
    if (!lazy[leader].empty())
      filled = perModule; // the next family starts a module of its own
  };
  std::vector<bool> placed(kernels.size(), false);
  for (unsigned i = 0; i < kernels.size(); ++i) {
    unsigned leader = families.getLeaderValue(i);
    if (placed[leader])
      continue;
    placed[leader] = true;
    const std::vector<unsigned> &family = members[leader];
    unsigned size = family.size();
    if (perModule && size > perModule) {
      unsigned parts = (size + perModule - 1) / perModule;
      for (unsigned part = 0, next = 0; part < parts; ++part) {
        unsigned count = size / parts + (part < size % parts ? 1 : 0);
        for (unsigned j = 0; j < count; ++j)
          kernels[family[next++]].module = modules;
        ++modules;
      }
      filled = perModule; // the next family starts a module of its own
      placeLazy(leader);
      continue;
    }
    if (size && (modules == 0 || (perModule && filled + size > perModule))) {
      ++modules;
      filled = 0;
    }
    for (unsigned k : family)
      kernels[k].module = modules - 1;
    filled += size;
    placeLazy(leader);
  }
  return modules;
}

namespace {
/// What every cut reads of the whole module, built once: its symbols, the
/// position of each top-level operation, the operations that are not
/// symbols (every module gets them) and the kernels of each module.
struct Whole {
  explicit Whole(ModuleOp module, ArrayRef<KernelInfo> kernels, unsigned count)
      : symbols(module), kernelsOf(count) {
    for (auto [i, op] : llvm::enumerate(*module.getBody())) {
      position[&op] = i;
      if (!isa<SymbolOpInterface>(op))
        shared.push_back(&op);
    }
    for (const KernelInfo &k : kernels)
      kernelsOf[k.module].push_back(k.name);
  }
  SymbolTable symbols;
  llvm::DenseMap<Operation *, unsigned> position;
  SmallVector<Operation *> shared;
  std::vector<std::vector<std::string>> kernelsOf;
};
} // namespace

/// The kernels of module `which` with every function and global they reach,
/// in the order of `module` (declarations and definitions as they are),
/// and the top-level operations that are not symbols.
static OwningOpRef<ModuleOp> cutModule(ModuleOp module, const Whole &whole,
                                       unsigned which) {
  const SymbolTable &symbols = whole.symbols;
  llvm::DenseSet<Operation *> wanted;
  SmallVector<Operation *> work;
  auto want = [&](Operation *op) {
    if (op && wanted.insert(op).second)
      work.push_back(op);
  };
  for (const std::string &name : whole.kernelsOf[which])
    want(symbols.lookup(name));
  // What the code reaches (calls, globals' addresses): the uses in each
  // symbol's regions, not the references among a family's kernels that
  // its attributes carry (tile.variants, tile.plain_variant), which the
  // launch metadata has already read.
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    for (Region &region : op->getRegions())
      if (auto uses = SymbolTable::getSymbolUses(&region))
        for (const SymbolTable::SymbolUse &use : *uses)
          want(symbols.lookup(use.getSymbolRef().getRootReference()));
  }
  OpBuilder builder(module.getContext());
  OwningOpRef<ModuleOp> part = ModuleOp::create(module.getLoc());
  (*part)->setAttrs(module->getAttrDictionary());
  builder.setInsertionPointToEnd(part->getBody());
  // In the module's order; linear in what the part holds.
  SmallVector<Operation *> ops(wanted.begin(), wanted.end());
  ops.append(whole.shared.begin(), whole.shared.end());
  llvm::sort(ops, [&](Operation *a, Operation *b) {
    return whole.position.lookup(a) < whole.position.lookup(b);
  });
  for (Operation *op : ops)
    builder.clone(*op);
  return part;
}

FailureOr<std::vector<CodeModule>>
tilec::compileModules(ModuleOp module, ArrayRef<KernelInfo> kernels,
                      unsigned count, StringRef arch, int optLevel,
                      std::string &errors,
                      std::function<LogicalResult(ModuleOp)> lower) {
  // Built once and only read by the threads.
  std::optional<Whole> whole;
  if (count > 1)
    whole.emplace(module, kernels, count);
  std::vector<CodeModule> out(count);
  std::vector<std::string> failures(count);
  // A module of lazy kernels is PTX only.
  for (const KernelInfo &k : kernels)
    if (k.lazy)
      out[k.module].assembled = false;
  // A module compiled iff it has a cubin (ptxas never writes an empty one),
  // or, PTX only, its PTX.
  auto compileOne = [&](unsigned i) {
    OwningOpRef<ModuleOp> part;
    ModuleOp target = module;
    if (whole) {
      part = cutModule(module, *whole, i);
      target = *part;
    }
    using Clock = std::chrono::steady_clock;
    auto seconds = [](Clock::time_point since) {
      return std::chrono::duration<double>(Clock::now() - since).count();
    };
    Clock::time_point t0 = Clock::now();
    if (lower) {
      LogicalResult lowered = lower(target);
      out[i].lowerSeconds = seconds(t0);
      if (failed(lowered)) {
        failures[i] = "lowering code module " + std::to_string(i) +
                      " to the LLVM dialect failed";
        return;
      }
      t0 = Clock::now();
    }
    FailureOr<std::string> ptx = emitPTX(target, arch, optLevel);
    out[i].llvmSeconds = seconds(t0);
    if (failed(ptx))
      return;
    out[i].ptx = std::move(*ptx);
    if (!out[i].assembled)
      return;
    t0 = Clock::now();
    FailureOr<std::string> cubin = assemblePTX(out[i].ptx, arch, optLevel,
                                               failures[i], &out[i].ptxasInfo);
    out[i].ptxasSeconds = seconds(t0);
    if (succeeded(cubin))
      out[i].cubin = std::move(*cubin);
  };
  if (count == 1 || !module.getContext()->isMultithreadingEnabled()) {
    // One module, or a context whose uniquing is not thread-safe
    // (--print-ir-after turns its multithreading off): one after another.
    for (unsigned i = 0; i < count; ++i)
      compileOne(i);
  } else {
    // Longest first (the pool takes them in order), so that no thread
    // starts a long module when the others are nearly done: a module's
    // work estimated by its kernels' operations, twice for one that ptxas
    // assembles. Only the order of the work depends on it, never a byte.
    std::vector<uint64_t> weight(count, 0);
    for (const KernelInfo &k : kernels)
      if (Operation *fn = whole->symbols.lookup(k.name)) {
        uint64_t ops = 0;
        fn->walk([&](Operation *) { ++ops; });
        weight[k.module] += out[k.module].assembled ? 2 * ops : ops;
      }
    std::vector<unsigned> order(count);
    for (unsigned i = 0; i < count; ++i)
      order[i] = i;
    llvm::stable_sort(order,
                      [&](unsigned a, unsigned b) { return weight[a] > weight[b]; });
    unsigned cores = llvm::hardware_concurrency().compute_thread_count();
    llvm::DefaultThreadPool pool(
        llvm::hardware_concurrency(std::min(count, std::max(cores, 1u))));
    for (unsigned i : order)
      pool.async([&, i] { compileOne(i); });
    pool.wait();
  }
  for (unsigned i = 0; i < count; ++i)
    if (out[i].assembled ? out[i].cubin.empty() : out[i].ptx.empty()) {
      errors = failures[i];
      return failure();
    }
  return out;
}
