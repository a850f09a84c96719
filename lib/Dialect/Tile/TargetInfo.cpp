//===- TargetInfo.cpp - what a target offers the compiler -----------------===//

#include "tilec/Dialect/Tile/TargetInfo.h"

#include "mlir/IR/BuiltinOps.h"

#include <algorithm>

using namespace mlir;
using namespace tilec;

namespace {
// Hopper and Blackwell share an SM's budget: 228 KiB of shared memory with
// 1 KiB reserved a block, and 64K registers.
constexpr TargetInfo kTargets[] = {
    {/*target=*/tile::Target::SM90a, /*arch=*/"sm_90a",
     /*computeCapability=*/90, /*tma=*/true, /*wgmma=*/true,
     /*tcgen05=*/false, /*sharedMemoryPerSM=*/233472,
     /*reservedSharedMemoryPerBlock=*/1024, /*sharedBaseAlignment=*/16,
     /*registersPerSM=*/65536,
     /*warpSize=*/32, /*warpgroupWarps=*/4},
    {/*target=*/tile::Target::SM100a, /*arch=*/"sm_100a",
     /*computeCapability=*/100, /*tma=*/true, /*wgmma=*/false,
     /*tcgen05=*/true, /*sharedMemoryPerSM=*/233472,
     /*reservedSharedMemoryPerBlock=*/1024, /*sharedBaseAlignment=*/1024,
     /*registersPerSM=*/65536,
     /*warpSize=*/32, /*warpgroupWarps=*/4},
};
} // namespace

const TargetInfo &TargetInfo::get(tile::Target target) {
  for (const TargetInfo &t : kTargets)
    if (t.target == target)
      return t;
  llvm_unreachable("a target without a TargetInfo");
}

const TargetInfo &TargetInfo::of(Operation *op) {
  return get(tile::getTarget(op));
}

std::optional<tile::Target> TargetInfo::parseArch(StringRef arch) {
  for (const TargetInfo &t : kTargets)
    if (t.arch == arch)
      return t.target;
  return std::nullopt;
}

std::string TargetInfo::supportedArchs() {
  std::string list;
  for (const TargetInfo &t : kTargets) {
    if (!list.empty())
      list += &t == std::end(kTargets) - 1 ? " or " : ", ";
    list += t.arch.str();
  }
  return list;
}

int64_t TargetInfo::sharedMemoryPerBlock(Operation *op) const {
  return sharedMemoryPerBlock(tile::getBlocksPerSM(op));
}

int TargetInfo::registerShare(int threads, int blocks) const {
  return std::min(256, registersPerSM / (threads * blocks)) / 8 * 8;
}
