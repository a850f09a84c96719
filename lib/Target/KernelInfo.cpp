//===- KernelInfo.cpp - launch metadata of tile kernels -------------------===//

#include "tilec/Dialect/TGPU/TGPUDialect.h"
#include "tilec/Dialect/Tile/ProfileRecords.h"
#include "tilec/Target/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace tilec;

static std::string dtypeName(Type t) {
  if (auto i = dyn_cast<IntegerType>(t))
    return "i" + std::to_string(i.getWidth());
  if (isa<Float8E4M3FNType>(t))
    return "f8e4m3";
  if (isa<Float8E5M2Type>(t))
    return "f8e5m2";
  if (isa<BFloat16Type>(t))
    return "bf16";
  if (t.isF16())
    return "f16";
  if (t.isF32())
    return "f32";
  return "f64";
}

namespace {
/// The main source buffer with the offsets of its lines, found once (a
/// scan from the start of the file for every argument made 10,000
/// kernels quadratic).
struct SourceLines {
  StringRef text;
  std::vector<size_t> starts; // starts[l - 1]: offset of line l

  explicit SourceLines(const llvm::SourceMgr *sources) {
    if (!sources || sources->getNumBuffers() == 0)
      return;
    text = sources->getMemoryBuffer(sources->getMainFileID())->getBuffer();
    starts.push_back(0);
    for (size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n')
        starts.push_back(i + 1);
  }

  /// The identifier after '%' at `loc` in the source, if there is one.
  std::string nameAt(Location loc) const {
    auto fl = dyn_cast<FileLineColLoc>(loc);
    if (!fl || fl.getLine() == 0 || fl.getLine() > starts.size() ||
        fl.getColumn() == 0)
      return {};
    size_t pos = starts[fl.getLine() - 1] + fl.getColumn() - 1;
    if (pos >= text.size())
      return {};
    StringRef rest = text.drop_front(pos);
    if (!rest.consume_front("%"))
      return {};
    size_t n = 0;
    while (n < rest.size() && (isalnum(rest[n]) || rest[n] == '_'))
      ++n;
    return rest.take_front(n).str();
  }
};
} // namespace

std::vector<KernelInfo> tilec::collectKernelInfo(ModuleOp module,
                                                 const llvm::SourceMgr *sources) {
  std::vector<KernelInfo> kernels;
  SourceLines lines(sources);
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func->hasAttr(tile::kKernelAttr))
      continue;
    KernelInfo k;
    k.name = func.getSymName().str();
    k.threads = 32 * tgpu::getLaunchWarps(func);
    if (auto cl = func->getAttrOfType<IntegerAttr>(tile::kClusterAttr))
      k.cluster[0] = cl.getInt();
    if (auto pv = func->getAttrOfType<FlatSymbolRefAttr>(tile::kPlainVariantAttr))
      k.plainVariant = pv.getValue().str();
    if (auto vs = func->getAttrOfType<ArrayAttr>(tile::kVariantsAttr))
      for (Attribute v : vs)
        k.variants.push_back(cast<FlatSymbolRefAttr>(v).getValue().str());
    // The grid language's text form lives only in the bundle.
    if (auto cost = func->getAttrOfType<tile::GridExprAttr>(tile::kCostAttr))
      k.cost = cost.toText();
    if (auto ws = func->getAttrOfType<tile::GridExprAttr>(tile::kWorkspaceAttr))
      k.workspace = ws.toText();
    if (auto sem = func->getAttrOfType<tile::GridExprAttr>(tile::kSemaphoresAttr))
      k.semaphores = sem.toText();
    if (auto scopes = func->getAttrOfType<ArrayAttr>(tile::kProfileScopesAttr)) {
      for (Attribute a : scopes)
        k.profileScopes.push_back(cast<StringAttr>(a).getValue().str());
      // The launch's warp groups (a recorder each: thread id / 128), named
      // by the partitions whose warps they hold: the warps are each copy of
      // each region's, in order, packed (sm_100a's one-warp load and MMA
      // partitions share a group: "load-mma").
      func.walk([&](tgpu::WarpSpecializeOp ws) {
        std::vector<std::string> warps;
        for (unsigned r = 0; r < ws.getPartitionRegions().size(); ++r) {
          tgpu::PartitionAttr p = ws.getPartition(r);
          std::string role = tgpu::stringifyPartitionRole(p.getRole()).str();
          for (int c = 0; c < p.getCopies(); ++c)
            warps.insert(warps.end(), p.getWarps(),
                         p.getCopies() > 1 ? role + "." + std::to_string(c)
                                           : role);
        }
        for (size_t g = 0; g * 4 < warps.size(); ++g) {
          std::string name;
          for (size_t w = g * 4; w < std::min(warps.size(), g * 4 + 4); ++w)
            if (name != warps[w] && !llvm::StringRef(name).ends_with(
                                        "-" + warps[w]))
              name += (name.empty() ? "" : "-") + warps[w];
          k.profileGroups.push_back(name);
        }
      });
      if (k.profileGroups.empty())
        k.profileGroups.assign((k.threads / 32 + 3) / 4, "main");
      // Frames: each record (in program order) as SLOT:+SCOPE[@] or
      // SLOT:-SCOPE.
      func.walk([&](Operation *op) {
        std::optional<tile::ProfileRecord> rec = tile::asProfileRecord(op);
        if (!rec || !rec->frame)
          return;
        size_t id = llvm::find(scopes, rec->scope) - scopes.begin();
        size_t f = rec->frame.getInt();
        if (k.profileFrames.size() <= f)
          k.profileFrames.resize(f + 1);
        std::string &line = k.profileFrames[f];
        if (!line.empty())
          line += " ";
        line += std::to_string(rec->slot.getInt()) + ":" +
                (rec->end ? "-" : "+") + std::to_string(id);
        if (rec->arg)
          line += "@";
      });
    }
    auto grid = func->getAttrOfType<tile::GridAttr>(tile::kGridAttr);
    for (unsigned i = 0; i < 3; ++i)
      k.grid.push_back(grid.axis(i).toText());
    for (BlockArgument arg : func.getArguments()) {
      ParamInfo p;
      p.name = lines.nameAt(arg.getLoc());
      if (p.name.empty())
        p.name = "arg" + std::to_string(arg.getArgNumber());
      if (auto tv = dyn_cast<tile::TensorViewType>(arg.getType())) {
        p.isTensor = true;
        p.dtype = dtypeName(tv.getElementType());
        for (int64_t d : tv.getShape())
          p.shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
        for (int64_t s : tv.getStrides())
          p.strides.push_back(ShapedType::isDynamic(s) ? -1 : s);
        p.align = std::max(1u, tv.getElementType().getIntOrFloatBitWidth() / 8);
        if (tv.isTMA()) {
          p.tmaBox.assign(tv.getTmaBox().begin(), tv.getTmaBox().end());
          p.tmaSwizzle = tv.getTmaSwizzle();
          // With a path for plain loads the view keeps its own alignment
          // (the runtime zeroes the descriptor where TMA cannot read it).
          auto fb = func->getAttrOfType<DenseI32ArrayAttr>(tile::kTmaFallbackAttr);
          p.tmaFallback =
              fb && llvm::is_contained(fb.asArrayRef(), int(arg.getArgNumber()));
          if (!p.tmaFallback)
            p.align = 16;
        }
      } else {
        p.dtype = dtypeName(arg.getType());
      }
      k.params.push_back(p);
    }
    kernels.push_back(k);
  }
  return kernels;
}

void tilec::readSharedMemory(std::vector<KernelInfo> &kernels,
                             ModuleOp module) {
  // One table: a lookup in the module is a scan of it.
  SymbolTable symbols(module);
  for (KernelInfo &k : kernels) {
    Operation *op = symbols.lookup(k.name);
    if (!op)
      continue;
    if (auto a = op->getAttrOfType<IntegerAttr>(tile::kSharedMemoryAttr))
      k.sharedMemory = a.getInt();
  }
}

std::string tilec::writeMetadata(StringRef arch, ArrayRef<KernelInfo> kernels) {
  std::string s;
  llvm::raw_string_ostream os(s);
  auto dims = [&](const std::vector<int64_t> &v) {
    for (int64_t d : v) {
      os << " ";
      if (d < 0)
        os << "?";
      else
        os << d;
    }
  };
  os << "tilec-bundle 1\narch " << arch << "\n";
  for (const KernelInfo &k : kernels) {
    os << "kernel " << k.name << "\n";
    os << "threads " << k.threads << "\n";
    os << "smem " << k.sharedMemory << "\n";
    os << "cluster " << k.cluster[0] << " " << k.cluster[1] << " "
       << k.cluster[2] << "\n";
    if (k.module)
      os << "module " << k.module << "\n";
    if (!k.plainVariant.empty())
      os << "plain " << k.plainVariant << "\n";
    for (const std::string &v : k.variants)
      os << "variant " << v << "\n";
    if (!k.cost.empty())
      os << "cost " << k.cost << "\n";
    if (!k.workspace.empty())
      os << "workspace " << k.workspace << "\n";
    if (!k.semaphores.empty())
      os << "semaphores " << k.semaphores << "\n";
    if (!k.profileScopes.empty()) {
      os << "profile groups";
      for (const std::string &g : k.profileGroups)
        os << " " << g;
      os << "\nprofile scopes";
      for (const std::string &n : k.profileScopes)
        os << " " << n;
      os << "\n";
      for (const std::string &f : k.profileFrames)
        os << "profile frame " << f << "\n";
    }
    os << "grid " << k.grid[0] << " " << k.grid[1] << " " << k.grid[2] << "\n";
    for (const ParamInfo &p : k.params) {
      if (p.isTensor) {
        os << "param tensor " << p.name << " " << p.dtype << " "
           << p.shape.size() << " shape";
        dims(p.shape);
        os << " strides";
        dims(p.strides);
        os << " align " << p.align;
        if (!p.tmaBox.empty()) {
          os << " tma";
          dims(p.tmaBox);
          os << " swizzle ";
          if (p.tmaSwizzle)
            os << p.tmaSwizzle;
          else
            os << "none";
          os << " fill zero";
          if (p.tmaFallback)
            os << " fallback";
        }
        os << "\n";
      } else {
        os << "param scalar " << p.name << " " << p.dtype << "\n";
      }
    }
    os << "end\n";
  }
  return s;
}
