//===- TileOps.td - tile dialect operations ----------------*- tablegen -*-===//

#ifndef TILE_OPS_TD
#define TILE_OPS_TD

include "TileDialect.td"
include "TileTypes.td"
include "TileAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

def Tile_Tile : Type<AnyRankedTensor.predicate, "tile", "::mlir::RankedTensorType">;

//===----------------------------------------------------------------------===//
// Program indices
//===----------------------------------------------------------------------===//

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure]> {
  let summary = "index of this program along a grid axis";
  let description = [{
    ```mlir
    %pid = tile.program_id x
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "custom<Axis>($axis) attr-dict";
}

def Tile_NumProgramsOp : Tile_Op<"num_programs", [Pure]> {
  let summary = "number of programs along a grid axis";
  let description = [{
    ```mlir
    %n = tile.num_programs y
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "custom<Axis>($axis) attr-dict";
}

def Tile_StreamKUnitOp : Tile_Op<"stream_k_unit", [Pure]> {
  let summary = "the unit of a stream-K tile loop the program runs";
  let description = [{
    In a stream-K kernel (`tile.stream_k`, made by tile-shape-variants):
    the K steps `[lo, hi)` of its tile that this unit runs (of `steps`,
    the tile's K steps, an expression of the kernel's arguments), the
    workspace slot of its partial tile, the first slot of its tile's units
    and their number (consecutive slots in K order; 1: a whole tile).
    tile-persistent-tiles computes them from its schedule; a kernel that
    does not walk its tiles persistently runs whole tiles (0, steps, 0, 0,
    1).

    ```mlir
    %lo, %hi, %slot, %first, %units =
        tile.stream_k_unit #tile.expr<cdiv(dim(0, 1), 64)>
    ```
  }];
  let arguments = (ins Tile_GridExprAttr:$steps);
  let results = (outs I32:$lo, I32:$hi, I32:$slot, I32:$first, I32:$units);
  let assemblyFormat = "$steps attr-dict";
  let hasVerifier = 1;
}

def Tile_DimOp : Tile_Op<"dim", [Pure]> {
  let summary = "extent of a dim of a tensor view";
  let description = [{
    ```mlir
    %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
    ```
  }];
  let arguments = (ins Tile_TensorViewType:$tensor, I32Attr:$dim);
  let results = (outs I32:$result);
  let assemblyFormat = "$tensor `,` $dim attr-dict `:` qualified(type($tensor))";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

def Tile_WorkspaceOp : Tile_Op<"workspace", [Pure]> {
  let summary = "a row-major view of the kernel's workspace or semaphores";
  let description = [{
    The kernel's workspace (scratch device memory the runtime provides
    beside the parameters; docs/BUNDLE.md) or, with `semaphores`, its
    semaphores (memory that is zero when the kernel starts and that the
    kernel must leave zero), viewed from byte `offset` as a row-major
    tensor of the given extents. Only a kernel with a `tile.workspace`
    (`tile.semaphores`) size has one; the compiler sets them, as
    tile-shape-variants does for split-K members.

    ```mlir
    %partials = tile.workspace [%rows, %c128] offset %c0_i64 : !tile.tensor<?x?xf32>
    %counters = tile.workspace semaphores [%tiles] offset %c0_i64 : !tile.tensor<?xi32>
    ```
  }];
  let arguments = (ins UnitAttr:$semaphores, Variadic<I32>:$sizes, I64:$offset);
  let results = (outs Tile_TensorViewType:$result);
  let assemblyFormat = [{
    (`semaphores` $semaphores^)? `[` $sizes `]` `offset` $offset attr-dict
    `:` qualified(type($result))
  }];
  let hasVerifier = 1;
}


def Tile_LoadOp : Tile_Op<"load", [MemoryEffects<[MemRead]>,
                                   AttrSizedOperandSegments]> {
  let summary = "load a tile from a tensor view";
  let description = [{
    Reads the tile whose first element is at `offsets` (in elements, one per
    dim). Elements outside the view, and those whose `mask` (an i1 tile of
    the tile's shape) is false, read as `padding` (zero by default) and are
    not accessed. With `in_bounds`, whoever made the load guarantees that
    every element lies inside the view, that the view's contiguous dim has
    stride 1 and that its base, extents and other strides are aligned to the
    vectors the tile's layout gives a thread along it (the compiler's own
    accesses to a kernel's workspace are such): it is read with no bounds
    checks, masks or run-time alignment test.

    ```mlir
    %t = tile.load %a[%m, %k] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %u = tile.load %x[%i] {padding = 0xFF80 : bf16}
        : !tile.tensor<?xbf16> -> !tile.tile<1024xbf16>
    %w = tile.load %x[%i] mask(%keep : !tile.tile<1024xi1>)
        : !tile.tensor<?xbf16> -> !tile.tile<1024xbf16>
    %s = tile.load %lse[%row] : !tile.tensor<?xf32> -> f32
    ```

    A scalar result (the view's element type) is the one element at
    `offsets`, `padding` where it lies outside the view; it takes no mask
    (tile-scalar-memory makes it a load of a one-element tile).
  }];
  let arguments = (ins Tile_TensorViewType:$tensor,
                       Variadic<I32>:$offsets,
                       Optional<Tile_Tile>:$mask,
                       OptionalAttr<TypedAttrInterface>:$padding,
                       UnitAttr:$in_bounds);
  let results = (outs AnyTypeOf<[Tile_Tile, AnySignlessInteger, AnyFloat]>:$result);
  let assemblyFormat = [{
    $tensor `[` $offsets `]` (`mask` `(` $mask^ `:` type($mask) `)`)? attr-dict
    `:` qualified(type($tensor)) `->` type($result)
  }];
  let extraClassDeclaration = [{
    /// Whether elements outside the view read as zero (no padding, or a
    /// zero one): what TMA's out-of-bounds fill delivers.
    bool padsWithZero();
  }];
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [MemoryEffects<[MemWrite]>,
                                     AttrSizedOperandSegments]> {
  let summary = "store a tile into a tensor view";
  let description = [{
    Writes the tile at `offsets`; elements outside the view, and those whose
    `mask` is false, are dropped. `in_bounds` is as for tile.load: a
    guarantee that the tile lies inside the view with aligned vectors, so
    the store is written with no checks.

    ```mlir
    tile.store %c, %out[%m, %n] : !tile.tile<128x128xbf16>, !tile.tensor<?x?xbf16>
    tile.store %c, %out[%m, %n] mask(%upper : !tile.tile<128x128xi1>)
        : !tile.tile<128x128xbf16>, !tile.tensor<?x?xbf16>
    tile.store %s, %lse[%row] : f32, !tile.tensor<?xf32>
    ```

    A scalar value (the view's element type) is written at `offsets`
    where that lies inside the view; it takes no mask (tile-scalar-memory
    makes it a store of a one-element tile).

    `reduce add` adds the tile into the view instead of writing it: each
    element atomically (relaxed, at GPU scope), once however many threads
    hold a copy of it, as PTX `red` (vectors of up to four f32 on sm_90).
    f32 only. Canonicalization makes one of a `tile.atomic_rmw add` whose
    result is unused and whose index tiles address a box (each an offset
    plus, at most, an iota along one tile dim, in the view's dim order).

    ```mlir
    tile.store %dq, %acc[%b, %h, %m0, %c0] reduce add
        : !tile.tile<1x1x64x128xf32>, !tile.tensor<?x?x?x128xf32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[Tile_Tile, AnySignlessInteger, AnyFloat]>:$value,
                       Tile_TensorViewType:$tensor,
                       Variadic<I32>:$offsets,
                       Optional<Tile_Tile>:$mask,
                       UnitAttr:$in_bounds,
                       OptionalAttr<Tile_AtomicKindAttr>:$reduce);
  let assemblyFormat = [{
    $value `,` $tensor `[` $offsets `]` (`mask` `(` $mask^ `:` type($mask) `)`)?
    (`reduce` $reduce^)? attr-dict `:` type($value) `,` qualified(type($tensor))
  }];
  let hasVerifier = 1;
}

def Tile_GatherOp : Tile_Op<"gather", [MemoryEffects<[MemRead]>,
                                       AttrSizedOperandSegments]> {
  let summary = "load the elements at per-element indices";
  let description = [{
    Element e of the result is the view's element at (indices[0][e], ...,
    indices[r-1][e]): one i32 index tile per view dim, each of the result's
    shape. Elements whose index is outside the view, or whose `mask` is
    false, read as `padding` (zero by default).

    ```mlir
    // Rows of an embedding table: row ids broadcast along the columns.
    %rows = tile.broadcast %ids2 : !tile.tile<64x1xi32> -> !tile.tile<64x128xi32>
    %cols = tile.broadcast %iota2 : !tile.tile<1x128xi32> -> !tile.tile<64x128xi32>
    %e = tile.gather %table[%rows, %cols] mask(%ok : !tile.tile<64x128xi1>)
        : !tile.tensor<?x128xbf16>, !tile.tile<64x128xi32>, !tile.tile<64x128xi32>
          -> !tile.tile<64x128xbf16>
    ```
  }];
  let arguments = (ins Tile_TensorViewType:$tensor,
                       Variadic<Tile_Tile>:$indices,
                       Optional<Tile_Tile>:$mask,
                       OptionalAttr<TypedAttrInterface>:$padding);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    $tensor `[` $indices `]` (`mask` `(` $mask^ `:` type($mask) `)`)? attr-dict
    `:` qualified(type($tensor)) `,` type($indices) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tile_ScatterOp : Tile_Op<"scatter", [MemoryEffects<[MemWrite]>,
                                         AttrSizedOperandSegments]> {
  let summary = "store elements at per-element indices";
  let description = [{
    Writes element e of `value` to the view's element at (indices[0][e],
    ..., indices[r-1][e]); elements whose index is outside the view, or
    whose `mask` is false, are dropped. Where two elements have the same
    index, one of them is written (which one is unspecified).

    ```mlir
    tile.scatter %v, %out[%rows, %cols] : !tile.tile<64x128xf32>,
        !tile.tensor<?x?xf32>, !tile.tile<64x128xi32>, !tile.tile<64x128xi32>
    ```
  }];
  let arguments = (ins Tile_Tile:$value, Tile_TensorViewType:$tensor,
                       Variadic<Tile_Tile>:$indices,
                       Optional<Tile_Tile>:$mask);
  let assemblyFormat = [{
    $value `,` $tensor `[` $indices `]` (`mask` `(` $mask^ `:` type($mask) `)`)?
    attr-dict `:` type($value) `,` qualified(type($tensor)) `,` type($indices)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicRMWOp : Tile_Op<"atomic_rmw", [MemoryEffects<[MemRead, MemWrite]>,
                                              AllTypesMatch<["value", "result"]>,
                                              AttrSizedOperandSegments]> {
  let summary = "atomic read-modify-write of global memory, per element";
  let description = [{
    For each element e of `value`, atomically replaces the view's element x
    at (indices[0][e], ...) with `x kind value[e]` and returns x (the old
    value; elements outside the view or masked off return zero and touch
    nothing). Kinds: `add` (f32, f16, bf16, i32), `max` and `min` (i32
    signed, f32), `umax` and `umin` (i32 unsigned), `and`, `or`, `xor`
    (i32), `xchg` (i32, f32). Each element is one atomic operation, done
    once however many threads hold a copy of it. `sem` orders it with the
    thread's other memory accesses (`relaxed`, `acquire`, `release`,
    `acq_rel`, the default) and `scope` says which threads it is atomic and
    ordered with (`cta`, `gpu`, the default, `sys`). A result nobody uses
    becomes a reduction (PTX `red`) where one exists.

    ```mlir
    // Split-K: each program adds its partial product into C.
    %old = tile.atomic_rmw add %part, %c[%rows, %cols] sem relaxed
        : !tile.tile<128x128xf32>, !tile.tensor<?x?xf32>,
          !tile.tile<128x128xi32>, !tile.tile<128x128xi32>
    ```
  }];
  let arguments = (ins Tile_AtomicKindAttr:$kind, Tile_Tile:$value,
                       Tile_TensorViewType:$tensor,
                       Variadic<Tile_Tile>:$indices,
                       Optional<Tile_Tile>:$mask,
                       DefaultValuedAttr<Tile_MemSemanticsAttr,
                                         "::tilec::tile::MemSemantics::AcqRel">:$sem,
                       DefaultValuedAttr<Tile_MemScopeAttr,
                                         "::tilec::tile::MemScope::GPU">:$scope);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    $kind $value `,` $tensor `[` $indices `]`
    (`mask` `(` $mask^ `:` type($mask) `)`)? (`sem` $sem^)? (`scope` $scope^)?
    attr-dict `:` type($value) `,` qualified(type($tensor)) `,` type($indices)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tile_AtomicCASOp : Tile_Op<"atomic_cas", [MemoryEffects<[MemRead, MemWrite]>,
                                              AllTypesMatch<["cmp", "value", "result"]>,
                                              AttrSizedOperandSegments]> {
  let summary = "atomic compare-and-swap of global memory, per element";
  let description = [{
    For each element e, atomically: x = the view's element at (indices[0][e],
    ...); if x == cmp[e] it becomes value[e]; returns x. 32-bit elements
    (i32, f32; floats compare bit for bit). Masks, bounds, `sem` and
    `scope` as in tile.atomic_rmw.

    ```mlir
    %old = tile.atomic_cas %lock[%i], %zeros, %ones
        : !tile.tensor<?xi32>, !tile.tile<128xi32>, !tile.tile<128xi32> -> !tile.tile<128xi32>
    ```
  }];
  let arguments = (ins Tile_TensorViewType:$tensor,
                       Variadic<Tile_Tile>:$indices,
                       Tile_Tile:$cmp, Tile_Tile:$value,
                       Optional<Tile_Tile>:$mask,
                       DefaultValuedAttr<Tile_MemSemanticsAttr,
                                         "::tilec::tile::MemSemantics::AcqRel">:$sem,
                       DefaultValuedAttr<Tile_MemScopeAttr,
                                         "::tilec::tile::MemScope::GPU">:$scope);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    $tensor `[` $indices `]` `,` $cmp `,` $value
    (`mask` `(` $mask^ `:` type($mask) `)`)? (`sem` $sem^)? (`scope` $scope^)?
    attr-dict `:` qualified(type($tensor)) `,` type($indices) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

def Tile_DotOp : Tile_Op<"dot", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "matrix product with accumulation: a · b + acc";
  let description = [{
    `a` is MxK, `b` is KxN, `acc` and the result MxN. Inputs bf16, f16,
    f8E4M3FN or f8E5M2 (both the same); accumulation in f32, or f16 for f16
    inputs.

    ```mlir
    %d = tile.dot %a, %b, %c : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16>
        -> !tile.tile<128x128xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$a, Tile_Tile:$b, Tile_Tile:$acc);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc attr-dict `:` type($a) `,` type($b) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure]> {
  let summary = "reduce a tile along one dim";
  let description = [{
    Combines the elements along `dim` with `sum`, `max` or `min`. The result
    drops that dim; reducing a rank-1 tile gives a scalar.

    ```mlir
    %m = tile.reduce max %x dim 1 : !tile.tile<64x128xf32> -> !tile.tile<64xf32>
    %s = tile.reduce sum %v dim 0 : !tile.tile<1024xf32> -> f32
    ```
  }];
  let arguments = (ins Tile_ReduceKindAttr:$kind, Tile_Tile:$src, I32Attr:$dim);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $kind $src `dim` $dim attr-dict `:` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_ScanOp : Tile_Op<"scan", [Pure, AllTypesMatch<["src", "result"]>]> {
  let summary = "prefix sums (or max, min, or a user's combiner) along a dim";
  let description = [{
    Element i along `dim` of the result combines the elements 0..i of the
    source along that dim (`exclusive`: 0..i-1, the identity for i = 0:
    0, -inf or +inf, the type's smallest or largest integer). The combiner
    is `sum`, `max` or `min`, or a region of two scalars that yields one
    (`a` the earlier part, `b` the later): it must be associative, and it is
    applied in a tree (log2 of the dim's size deep), so a non-associative
    one (or float rounding) gives results that depend on the layout.
    `exclusive` needs a named combiner (a region has no identity).

    ```mlir
    %c = tile.scan sum %x dim 1 : !tile.tile<64x128xf32>
    %e = tile.scan sum %x dim 0 exclusive : !tile.tile<1024xi32>
    %p = tile.scan %x dim 1 combine {
    ^bb0(%a: f32, %b: f32):
      %m = arith.mulf %a, %b : f32
      tile.yield %m : f32
    } : !tile.tile<16x256xf32>
    ```
  }];
  let arguments = (ins OptionalAttr<Tile_ReduceKindAttr>:$kind,
                       Tile_Tile:$src, I32Attr:$dim, UnitAttr:$exclusive);
  let results = (outs Tile_Tile:$result);
  let regions = (region AnyRegion:$combiner);
  // `[sum|max|min] $src dim N [exclusive] [combine REGION] attr-dict :
  // type`, parsed by hand so that the region belongs to the operation state
  // while it is parsed (see TileOps.cpp: ScanOp::parse).
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Tile_YieldOp : Tile_Op<"yield", [Pure, Terminator, ReturnLike,
    HasParent<"ScanOp">]> {
  let summary = "the value a combiner region gives";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

def Tile_SortOp : Tile_Op<"sort", [Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "sort a tile along a dim, carrying other tiles along";
  let description = [{
    Sorts each line of `keys` along `dim` (at most 1024 elements) in
    ascending order, or `descending`; each of `values` (tiles of the same
    shape) is permuted as its keys are. A bitonic network: equal keys keep
    no particular order (not stable); float NaNs compare as by
    `arith.cmpf olt`, so their place is unspecified.

    ```mlir
    %k, %i = tile.sort %scores, %idx dim 1 descending
        : !tile.tile<16x64xf32>, !tile.tile<16x64xi32>
    ```
  }];
  let arguments = (ins Tile_Tile:$keys, Variadic<Tile_Tile>:$values,
                       I32Attr:$dim, UnitAttr:$descending);
  let results = (outs Tile_Tile:$sortedKeys, Variadic<Tile_Tile>:$sortedValues);
  let assemblyFormat = [{
    $keys (`,` $values^)? `dim` $dim (`descending` $descending^)? attr-dict
    `:` type($keys) (`,` type($values)^)?
  }];
  let hasVerifier = 1;
}

def Tile_TopKOp : Tile_Op<"topk", [Pure]> {
  let summary = "the k largest (or smallest) elements along a dim, sorted";
  let description = [{
    Along `dim` (at most 1024 elements), the k largest keys in descending
    order (`smallest`: the k smallest, ascending), with the matching
    elements of each of `values`. The results have `dim` of size k (a power
    of two, at most the dim's size); ties keep no particular order.

    ```mlir
    %v, %i = tile.topk %logits, %idx dim 1 k 8
        : !tile.tile<16x128xf32>, !tile.tile<16x128xi32>
        -> !tile.tile<16x8xf32>, !tile.tile<16x8xi32>
    ```
  }];
  let arguments = (ins Tile_Tile:$keys, Variadic<Tile_Tile>:$values,
                       I32Attr:$dim, I32Attr:$k, UnitAttr:$smallest);
  let results = (outs Tile_Tile:$topKeys, Variadic<Tile_Tile>:$topValues);
  let assemblyFormat = [{
    $keys (`,` $values^)? `dim` $dim `k` $k (`smallest` $smallest^)? attr-dict
    `:` type($keys) (`,` type($values)^)? `->` type($topKeys)
    (`,` type($topValues)^)?
  }];
  let hasVerifier = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "repeat a tile along its size-1 dims";
  let description = [{
    ```mlir
    %b = tile.broadcast %x : !tile.tile<1x128xf32> -> !tile.tile<64x128xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$src);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_ExpandDimsOp : Tile_Op<"expand_dims", [Pure]> {
  let summary = "insert a size-1 dim";
  let description = [{
    ```mlir
    %e = tile.expand_dims %x axis 1 : !tile.tile<64xf32> -> !tile.tile<64x1xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$src, I32Attr:$axis);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$src `axis` $axis attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure]> {
  let summary = "reinterpret a tile's elements (row-major) with another shape";
  let description = [{
    ```mlir
    %r = tile.reshape %x : !tile.tile<8x16xf32> -> !tile.tile<128xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$src);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_TransposeOp : Tile_Op<"transpose", [Pure]> {
  let summary = "permute the dims of a tile";
  let description = [{
    Result dim `i` is source dim `permutation[i]`.

    ```mlir
    %t = tile.transpose %x [1, 0] : !tile.tile<64x128xf32> -> !tile.tile<128x64xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$src, DenseI32ArrayAttr:$permutation);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$src $permutation attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ExtractSliceOp : Tile_Op<"extract_slice", [Pure]> {
  let summary = "the block of a tile at static offsets";
  let description = [{
    The result's shape is the block's size; `offsets` (one per dim) is its
    first element. Where the source's layout already keeps each thread's
    elements of the block in whole registers, no data moves. Blocks of a
    loaded tile that only blocks read are loads of their own (so each can
    be a TMA copy feeding a dot).

    ```mlir
    %s = tile.extract_slice %x [0, 64] : !tile.tile<64x128xf32> -> !tile.tile<64x64xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$src, DenseI64ArrayAttr:$offsets);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$src $offsets attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tile_InsertSliceOp : Tile_Op<"insert_slice", [Pure,
    AllTypesMatch<["dest", "result"]>]> {
  let summary = "a tile with the block at static offsets replaced";
  let description = [{
    The result is `dest` with the elements at `offsets` .. `offsets` +
    shape(`src`) taken from `src`.

    ```mlir
    %r = tile.insert_slice %s into %x [0, 64] : !tile.tile<64x64xf32> into !tile.tile<64x128xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$src, Tile_Tile:$dest,
                       DenseI64ArrayAttr:$offsets);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    $src `into` $dest $offsets attr-dict `:` type($src) `into` type($dest)
  }];
  let hasVerifier = 1;
}

def Tile_ConcatOp : Tile_Op<"concat", [Pure]> {
  let summary = "tiles joined along one dim";
  let description = [{
    The operands agree on every other dim and on the element type; the
    result's extent along `dim` is the sum of theirs (a power of two, as
    every tile's).

    ```mlir
    %c = tile.concat %a, %b dim 1 : !tile.tile<64x64xf32>, !tile.tile<64x64xf32> -> !tile.tile<64x128xf32>
    ```
  }];
  let arguments = (ins Variadic<Tile_Tile>:$inputs, I32Attr:$dim);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    $inputs `dim` $dim attr-dict `:` type($inputs) `->` type($result)
  }];
  let extraClassDeclaration = [{
    /// Where each input's block starts in the result.
    ::llvm::SmallVector<::llvm::SmallVector<int64_t>> getBlockOffsets();
  }];
  let hasVerifier = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure]> {
  let summary = "a tile with every element equal to a scalar";
  let description = [{
    ```mlir
    %s = tile.splat %x : f32 -> !tile.tile<64x64xf32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[AnySignlessInteger, AnyFloat]>:$value);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$value attr-dict `:` type($value) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_IotaOp : Tile_Op<"iota", [Pure]> {
  let summary = "the rank-1 tile 0, 1, ..., N-1";
  let description = [{
    ```mlir
    %i = tile.iota : !tile.tile<128xi32>
    ```
  }];
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_PhiloxOp : Tile_Op<"philox", [Pure,
    AllTypesMatch<["c0", "c1", "c2", "c3", "r0", "r1", "r2", "r3"]>]> {
  let summary = "the Philox4x32-10 counter-based generator, element-wise";
  let description = [{
    Element e of the results is Philox4x32 with 10 rounds (Salmon et al.,
    SC'11; bit for bit the Random123 reference) of the counter (c0[e],
    c1[e], c2[e], c3[e]) under the key (k0, k1): four independent uniform
    32-bit words. Same key and counter, same words, on any GPU and grid.

    ```mlir
    %r:4 = tile.philox %ctr, %zero, %zero, %zero key %seed_lo, %seed_hi
        : !tile.tile<1024xi32>
    ```
  }];
  let arguments = (ins Tile_Tile:$c0, Tile_Tile:$c1, Tile_Tile:$c2,
                       Tile_Tile:$c3, I32:$k0, I32:$k1);
  let results = (outs Tile_Tile:$r0, Tile_Tile:$r1, Tile_Tile:$r2,
                      Tile_Tile:$r3);
  let assemblyFormat = [{
    $c0 `,` $c1 `,` $c2 `,` $c3 `key` $k0 `,` $k1 attr-dict `:` type($c0)
  }];
  let hasVerifier = 1;
}

def Tile_RandOp : Tile_Op<"rand", [Pure]> {
  let summary = "uniform or normal f32 random numbers from a seed and offsets";
  let description = [{
    Element e is drawn from Philox4x32-10 (tile.philox) with the counter
    (offsets[e], 0, 0, 0) and the key (k0, k1): `uniform` in [0, 1) as
    (r0 >> 8) * 2^-24 (24 random bits, every float a multiple of 2^-24);
    `normal` (mean 0, variance 1) by Box-Muller from r0 and r1,
    sqrt(-2 ln u1) cos(2 pi u2) with u1 = ((r0 >> 8) + 1) * 2^-24 in
    (0, 1] and u2 = (r1 >> 8) * 2^-24 (the SFU's lg2, cos and sqrt
    approximations). Different offsets give independent numbers; the same
    seed and offsets, the same numbers.

    ```mlir
    %u = tile.rand uniform %offs key %seed, %c0 : !tile.tile<1024xi32> -> !tile.tile<1024xf32>
    ```
  }];
  let arguments = (ins Tile_RandomDistributionAttr:$distribution,
                       Tile_Tile:$offsets, I32:$k0, I32:$k1);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    $distribution $offsets `key` $k0 `,` $k1 attr-dict `:` type($offsets) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Debugging
//===----------------------------------------------------------------------===//

def Tile_PrintOp : Tile_Op<"print"> {
  let summary = "print values with their coordinates from the device";
  let description = [{
    Each element of each operand (a tile or a scalar) is printed on a line
    of its own by the thread that holds it (once, however many threads
    hold copies): the program id, the prefix, the operand's number, the
    element's coordinates and its value. From every program, or only from
    `program [x, y, z]`. Compiled in only with `tilec compile --debug`
    (elsewhere the op is removed), or always with `always`.

    ```mlir
    tile.print "acc" %acc program [0, 0, 0] : !tile.tile<16x16xf32>
    ```
  }];
  let arguments = (ins StrAttr:$prefix, Variadic<AnyType>:$args,
                       OptionalAttr<DenseI32ArrayAttr>:$program,
                       UnitAttr:$always);
  let assemblyFormat = [{
    $prefix ($args^)? (`program` $program^)? (`always` $always^)? attr-dict
    (`:` type($args)^)?
  }];
  let hasVerifier = 1;
}

// Records of the intra-kernel profiler (docs/PROFILER.md). They write
// nothing the program reads: their own resource keeps them in place and
// alive without ordering them against the program's memory accesses.
def Tile_ProfileResource : Resource<"::tilec::tile::ProfileResource">;

class Tile_ProfileRecordOp<string mnemonic, string edge>
    : Tile_Op<mnemonic, [MemoryEffects<[MemWrite<Tile_ProfileResource>]>]> {
  let summary = "mark the " # edge # " of a profiled scope";
  let hasVerifier = 1;
}

def Tile_ProfileBeginOp : Tile_ProfileRecordOp<"profile_begin", "begin"> {
  let arguments = (ins StrAttr:$scope, Optional<I32>:$arg,
                       OptionalAttr<I32Attr>:$frame,
                       OptionalAttr<I32Attr>:$slot);
  let assemblyFormat = [{ $scope (`(` $arg^ `)`)? attr-dict }];
  let builders = [OpBuilder<(ins "::llvm::StringRef":$scope, "::mlir::Value":$arg), [{
    build($_builder, $_state, $_builder.getStringAttr(scope), arg,
          ::mlir::IntegerAttr(), ::mlir::IntegerAttr());
  }]>];
  let description = [{
    In a kernel compiled with `tilec compile --profile` (or carrying the
    `tile.profile` attribute), one thread of each warp group records the
    time, the scope and `arg` (an iteration or tile number, shown in the
    trace) where it reaches this op; elsewhere the op is removed. Each
    `tile.profile_begin` is closed by a `tile.profile_end` of the same
    scope in the same block. Scope names are 1 to 48 characters of
    `[A-Za-z0-9_.:#-]`.

    `frame` and `slot` (both or neither) are tile-profile's: records of
    one frame (a run of records in one block) are stored together where
    its last one is; records of one slot (adjacent ops) share one clock
    reading (docs/PROFILER.md, "Frames").

    ```mlir
    tile.profile_begin "softmax"(%i)
    ...
    tile.profile_end "softmax"
    ```
  }];
}

def Tile_ProfileEndOp : Tile_ProfileRecordOp<"profile_end", "end"> {
  let arguments = (ins StrAttr:$scope, OptionalAttr<I32Attr>:$frame,
                       OptionalAttr<I32Attr>:$slot);
  let assemblyFormat = [{ $scope attr-dict }];
  let builders = [OpBuilder<(ins "::llvm::StringRef":$scope), [{
    build($_builder, $_state, $_builder.getStringAttr(scope),
          ::mlir::IntegerAttr(), ::mlir::IntegerAttr());
  }]>];
  let description = [{
    Closes the innermost open `tile.profile_begin` of the same scope (see
    there, also for `frame` and `slot`).
  }];
}

def Tile_AssertOp : Tile_Op<"assert"> {
  let summary = "abort the kernel where a condition is false";
  let description = [{
    Where an element of `cond` (an i1 tile or scalar) is false, the thread
    holding it prints the message, the source location, the element's
    coordinates and the program id, and the kernel stops with a
    device-side assertion (the launch's error, CUDA_ERROR_ASSERT).
    Compiled in only with `tilec compile --debug`, or always with `always`.

    ```mlir
    tile.assert %in_range, "index out of range" : !tile.tile<128xi1>
    ```
  }];
  let arguments = (ins AnyType:$cond, StrAttr:$message, UnitAttr:$always);
  let assemblyFormat = [{
    $cond `,` $message (`always` $always^)? attr-dict `:` type($cond)
  }];
  let hasVerifier = 1;
}

def Tile_ConvertLayoutOp : Tile_Op<"convert_layout", [Pure]> {
  let summary = "move a tile's elements to another layout";
  let description = [{
    The value is unchanged; only which thread holds which element changes.
    A conversion that goes through shared memory uses the buffer layout in
    `shared` (set by tile-swizzle), or chooses one when lowered.

    ```mlir
    %y = tile.convert_layout %x : tensor<64x64xf32, #a> -> tensor<64x64xf32, #b>
    ```
  }];
  let arguments = (ins Tile_Tile:$src,
                       OptionalAttr<Tile_SharedLayoutAttr>:$shared);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

#endif // TILE_OPS_TD
