//===- TargetInfo.h - what a target offers the compiler ----------*- C++ -*-===//
//
// One hardware model: each target tilec compiles for (#tile.target) with the
// instructions it has and the resources a block may use. Passes read it
// from the module (TargetInfo::of) instead of comparing targets or
// restating limits.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_TARGETINFO_H
#define TILEC_DIALECT_TILE_TARGETINFO_H

#include "tilec/Dialect/Tile/TileDialect.h"

#include <optional>
#include <string>

namespace tilec {

struct TargetInfo {
  tile::Target target;
  /// The name --arch and bundles use ("sm_90a") and its compute
  /// capability as PTX's __CUDA_ARCH__ / 10 counts it (90).
  llvm::StringRef arch;
  int computeCapability;

  //--- Instructions ---------------------------------------------------===//
  /// cp.async.bulk.tensor (TMA) copies and stores.
  bool tma;
  /// Warpgroup MMAs (wgmma.mma_async) on shared-memory operands.
  bool wgmma;
  /// tcgen05: MMAs into tensor memory, signalled by tcgen05.commit; an MMA
  /// over a CTA pair (cta_group::2); cluster launch control.
  bool tcgen05;
  /// An asynchronous MMA a warp-specialized main loop can run.
  bool hasAsyncMMA() const { return wgmma || tcgen05; }
  /// The MMA's name in remarks.
  llvm::StringRef asyncMMAName() const { return tcgen05 ? "tcgen05" : "wgmma"; }

  //--- Shared memory ----------------------------------------------------===//
  /// An SM's shared memory, and what the system reserves of it for each
  /// resident block.
  int64_t sharedMemoryPerSM;
  int64_t reservedSharedMemoryPerBlock;
  /// The dynamic shared memory one block may use when `blocks` blocks
  /// share an SM: what passes that size rings plan against.
  int64_t sharedMemoryPerBlock(int blocks = 1) const {
    return sharedMemoryPerSM / blocks - reservedSharedMemoryPerBlock;
  }
  /// The same for the kernel holding `op` (its tile.blocks_per_sm).
  int64_t sharedMemoryPerBlock(mlir::Operation *op) const;
  /// The alignment the module states for the dynamic shared-memory base
  /// (tilec_smem): sm_100a's 1024-byte swizzle atoms need it stated;
  /// sm_90a's bundles keep 16, which its base has always exceeded.
  int64_t sharedBaseAlignment;

  //--- Registers and threads --------------------------------------------===//
  /// 32-bit registers of an SM's register file.
  int registersPerSM;
  int warpSize;
  int warpgroupWarps;
  /// A thread's even share of the register file when `blocks` blocks of
  /// `threads` threads share an SM, in setmaxnreg's steps of 8 (at most
  /// 256): what each thread starts with and what setmaxnreg moves
  /// registers within.
  int registerShare(int threads, int blocks = 1) const;

  /// The target of the module holding `op` (sm_90a where it names none).
  static const TargetInfo &of(mlir::Operation *op);
  static const TargetInfo &get(tile::Target target);
  /// The target named `arch` ("sm_90a"), or nullopt for one tilec does not
  /// support.
  static std::optional<tile::Target> parseArch(llvm::StringRef arch);
  /// Every supported target's name, for messages: "sm_90a or sm_100a".
  static std::string supportedArchs();
};

} // namespace tilec

#endif // TILEC_DIALECT_TILE_TARGETINFO_H
