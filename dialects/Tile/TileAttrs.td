//===- TileAttrs.td - tile dialect attributes --------------*- tablegen -*-===//

#ifndef TILE_ATTRS_TD
#define TILE_ATTRS_TD

include "TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

class Tile_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Tile_LinearLayoutAttr : Tile_Attr<"LinearLayout", "linear"> {
  let summary = "a distributed layout as a linear map over F2";
  let description = [{
    Maps the hardware index (register, lane, warp) of a value to the
    coordinates of the tile element it holds. Each input bit has a basis
    vector; the coordinates of an index are the XOR of the bases of its set
    bits. A zero basis means the element is replicated along that bit.

    ```mlir
    #tile.linear<register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [0, 16],
                 [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
    ```
  }];
  let parameters = (ins
    "unsigned":$rank,
    ArrayRefParameter<"int64_t">:$registerBases,
    ArrayRefParameter<"int64_t">:$laneBases,
    ArrayRefParameter<"int64_t">:$warpBases);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The layout as the algebra's class.
    ::tilec::LinearLayout toLayout(::llvm::ArrayRef<int64_t> shape) const;
    static LinearLayoutAttr get(::mlir::MLIRContext *ctx,
                                const ::tilec::LinearLayout &layout);
    unsigned getNumWarps() const { return 1u << (getWarpBases().size() / getRank()); }
  }];
}

def Tile_SharedLayoutAttr : Tile_Attr<"SharedLayout", "shared"> {
  let summary = "a shared-memory layout as a linear map over F2";
  let description = [{
    Maps the element offset of a value in a shared-memory buffer to the
    coordinates of the tile element stored there (one basis per offset bit).
    Swizzles are part of the map: a row bit whose basis also has a column
    component XORs that column.

    ```mlir
    // 8x8 with 16-byte chunks (8 bf16) XORed by the row:
    #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]>
    ```
  }];
  let parameters = (ins "unsigned":$rank,
                        ArrayRefParameter<"int64_t">:$offsetBases);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    ::tilec::LinearLayout toLayout(::llvm::ArrayRef<int64_t> shape) const;
    static SharedLayoutAttr get(::mlir::MLIRContext *ctx,
                                const ::tilec::LinearLayout &layout);
  }];
}

def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "reduction kind", [
    I32EnumAttrCase<"Sum", 0, "sum">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">]> {
  let cppNamespace = "::tilec::tile";
  let genSpecializedAttr = 0;
}
def Tile_ReduceKindAttr : EnumAttr<Tile_Dialect, Tile_ReduceKind, "reduce_kind"> {
  let assemblyFormat = "$value";
}

def Tile_AtomicKind : I32EnumAttr<"AtomicKind", "atomic read-modify-write operation", [
    I32EnumAttrCase<"Add", 0, "add">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">,
    I32EnumAttrCase<"UMax", 3, "umax">,
    I32EnumAttrCase<"UMin", 4, "umin">,
    I32EnumAttrCase<"And", 5, "and">,
    I32EnumAttrCase<"Or", 6, "or">,
    I32EnumAttrCase<"Xor", 7, "xor">,
    I32EnumAttrCase<"Xchg", 8, "xchg">]> {
  let cppNamespace = "::tilec::tile";
  let genSpecializedAttr = 0;
}
def Tile_AtomicKindAttr : EnumAttr<Tile_Dialect, Tile_AtomicKind, "atomic_kind"> {
  let assemblyFormat = "$value";
}

def Tile_MemSemantics : I32EnumAttr<"MemSemantics", "memory ordering of an atomic", [
    I32EnumAttrCase<"Relaxed", 0, "relaxed">,
    I32EnumAttrCase<"Acquire", 1, "acquire">,
    I32EnumAttrCase<"Release", 2, "release">,
    I32EnumAttrCase<"AcqRel", 3, "acq_rel">]> {
  let cppNamespace = "::tilec::tile";
  let genSpecializedAttr = 0;
}
def Tile_MemSemanticsAttr : EnumAttr<Tile_Dialect, Tile_MemSemantics, "sem"> {
  let assemblyFormat = "$value";
}

def Tile_MemScope : I32EnumAttr<"MemScope", "the threads an atomic is atomic and ordered with", [
    I32EnumAttrCase<"CTA", 0, "cta">,
    I32EnumAttrCase<"GPU", 1, "gpu">,
    I32EnumAttrCase<"Sys", 2, "sys">]> {
  let cppNamespace = "::tilec::tile";
  let genSpecializedAttr = 0;
}
def Tile_MemScopeAttr : EnumAttr<Tile_Dialect, Tile_MemScope, "scope"> {
  let assemblyFormat = "$value";
}

def Tile_RandomDistribution : I32EnumAttr<"RandomDistribution", "distribution of tile.rand", [
    I32EnumAttrCase<"Uniform", 0, "uniform">,
    I32EnumAttrCase<"Normal", 1, "normal">]> {
  let cppNamespace = "::tilec::tile";
  let genSpecializedAttr = 0;
}
def Tile_RandomDistributionAttr : EnumAttr<Tile_Dialect, Tile_RandomDistribution, "distribution"> {
  let assemblyFormat = "$value";
}

def Tile_Target : I32EnumAttr<"Target", "the GPU architecture a module is compiled for", [
    I32EnumAttrCase<"SM90a", 0, "sm_90a">,
    I32EnumAttrCase<"SM100a", 1, "sm_100a">]> {
  let cppNamespace = "::tilec::tile";
  let genSpecializedAttr = 0;
}
def Tile_TargetAttr : EnumAttr<Tile_Dialect, Tile_Target, "target"> {
  let summary = "the architecture a module is compiled for";
  let description = [{
    The module attribute `tile.target`, set by the driver (`tilec compile
    --arch`); passes read the target from it. A module without one is
    compiled for sm_90a.

    ```mlir
    module attributes {tile.target = #tile.target<sm_100a>} { ... }
    ```
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Tile_Schedule : I32EnumAttr<"Schedule",
    "how the consumers of a warp-specialized main loop share the tiles", [
    I32EnumAttrCase<"Cooperative", 0, "cooperative">,
    I32EnumAttrCase<"PingPong", 1, "pingpong">]> {
  let cppNamespace = "::tilec::tile";
  let genSpecializedAttr = 0;
}
def Tile_ScheduleAttr : EnumAttr<Tile_Dialect, Tile_Schedule, "schedule"> {
  let summary = "a kernel's consumer schedule (tile.schedule)";
  let description = [{
    `cooperative` (the default): the kernel's warps work on one tile
    together. `pingpong`: two copies of a one-warpgroup consumer work on
    alternate tiles, taking turns at the MMAs and at the epilogue.

    ```mlir
    func.func @k(...) attributes {tile.schedule = #tile.schedule<pingpong>, ...}
    ```
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Tile_TileScheduler : I32EnumAttr<"TileScheduler",
    "how the programs of a persistent kernel find their next tile", [
    I32EnumAttrCase<"Static", 0, "static">,
    I32EnumAttrCase<"LaunchControl", 1, "launch_control">,
    I32EnumAttrCase<"Dynamic", 2, "dynamic">]> {
  let cppNamespace = "::tilec::tile";
  let genSpecializedAttr = 0;
}
def Tile_TileSchedulerAttr : EnumAttr<Tile_Dialect, Tile_TileScheduler,
                                      "tile_scheduler"> {
  let summary = "a persistent kernel's tile scheduler (tile.tile_scheduler)";
  let description = [{
    `static` (the default): min(SMs, tiles) programs take the tiles in
    waves, each program's sequence fixed at launch. `launch_control`
    (sm_100a; cluster launch control, PTX ISA 8.6+): the grid has a
    block a tile, and a running block takes over the tile of a block not
    launched yet (`clusterlaunchcontrol.try_cancel`), so tiles go to the
    SMs that are free rather than to a fixed program, and blocks of
    another kernel sharing the GPU keep their place; a cluster's first
    block asks for the whole cluster. Where it cannot run (sm_90a,
    stream-K) the kernel keeps the static schedule and a remark says why.
    `dynamic` (any target): min(SMs · blocks_per_sm, tiles) programs
    start on the first
    tiles, and a program that finishes one takes the next of the order
    from a counter in the kernel's semaphores (an atomic add a tile, made
    by the load partition as it leaves the tile), so that tiles of unequal
    work that the grid does not predict (variable-length attention) and
    SMs that run slower even out. Each tile pays the atomic's round trip
    in the load partition, so where the grid's order already balances the
    work (the static waves alternate direction) it can be slower. Not with
    stream-K, ping-pong consumers, clusters or a kernel that has
    semaphores of its own (a remark says why).

    ```mlir
    func.func @k(...) attributes {tile.tile_scheduler = #tile.tile_scheduler<launch_control>, ...}
    ```
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Tile_GridOp : I32EnumAttr<"GridOp", "a node of a grid expression", [
    I32EnumAttrCase<"Literal", 0, "literal">,
    I32EnumAttrCase<"Sms", 1, "sms">,
    I32EnumAttrCase<"Dim", 2, "dim">,
    I32EnumAttrCase<"Arg", 3, "arg">,
    I32EnumAttrCase<"CDiv", 4, "cdiv">,
    I32EnumAttrCase<"Add", 5, "add">,
    I32EnumAttrCase<"Sub", 6, "sub">,
    I32EnumAttrCase<"Mul", 7, "mul">,
    I32EnumAttrCase<"Div", 8, "div">,
    I32EnumAttrCase<"Min", 9, "min">,
    I32EnumAttrCase<"Max", 10, "max">,
    I32EnumAttrCase<"Stride", 11, "stride">]> {
  let cppNamespace = "::tilec::tile";
  let genSpecializedAttr = 0;
}

def Tile_GridExprAttr : Tile_Attr<"GridExpr", "expr"> {
  let summary = "an integer expression of a kernel's launch arguments";
  let description = [{
    The language of launch-grid rules and launch costs (docs/BUNDLE.md):
    an integer literal; `sms`, the multiprocessor count of the device;
    `dim(P, D)`, the extent of dim `D` of tensor argument `P`;
    `stride(P, D)`, its stride in elements (costs only: a kernel cannot
    read it, so grids, workspaces and semaphores do not take it); `arg(P)`,
    integer scalar argument `P`; and `cdiv`, `add`, `sub`, `mul`, `div`,
    `min`, `max` of two expressions. The runtime evaluates it at launch;
    the bundle carries its text form (`cdiv(dim(0,0),128)`).

    ```mlir
    tile.cost = #tile.expr<mul(cdiv(dim(0, 0), 128), 32768)>
    ```
  }];
  let parameters = (ins "GridOp":$op, "int64_t":$value, "int64_t":$axis,
                        ArrayRefParameter<"::mlir::Attribute">:$operands);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    static GridExprAttr literal(::mlir::MLIRContext *ctx, int64_t v);
    static GridExprAttr sms(::mlir::MLIRContext *ctx);
    /// dim(param, axis): the extent of dim `axis` of tensor argument `param`.
    static GridExprAttr dimOf(::mlir::MLIRContext *ctx, int64_t param,
                              int64_t axis);
    /// arg(param): integer scalar argument `param`.
    static GridExprAttr argOf(::mlir::MLIRContext *ctx, int64_t param);
    /// stride(param, axis): the stride, in elements, of dim `axis` of
    /// tensor argument `param` (in costs only).
    static GridExprAttr strideOf(::mlir::MLIRContext *ctx, int64_t param,
                                 int64_t axis);
    static GridExprAttr call(GridOp op, GridExprAttr lhs, GridExprAttr rhs);
    /// The operands of a call.
    GridExprAttr lhs() const;
    GridExprAttr rhs() const;
    bool isCall() const { return getOperands().size() == 2; }
    bool isLiteral(int64_t v) const {
      return getOp() == GridOp::Literal && getValue() == v;
    }
    /// Whether the expression reads `sms` anywhere.
    bool usesSms() const;
    /// Whether it reads a `stride` anywhere.
    bool usesStride() const;
    /// Nodes, and the depth of the deepest.
    int64_t size() const;
    int64_t depth() const;
    /// The text form of the bundle metadata (docs/BUNDLE.md), without spaces.
    std::string toText() const;
    /// As the IR prints it (for diagnostics).
    std::string str() const;
    /// What is wrong with the expression in a kernel with these argument
    /// types, or nothing.
    std::optional<std::string> check(::mlir::TypeRange argTypes) const;
    /// The values the expression can take in a kernel with these argument
    /// types (extents >= 0 or static, integer arguments in their type's
    /// range, sms >= 1), as a closed interval, clamped to int64; and
    /// whether some division divides by a constant 0 (every launch fails).
    struct Range {
      int64_t lo, hi;
      bool divByZero;
    };
    Range range(::mlir::TypeRange argTypes) const;
    /// Parses an expression (without the `#tile.expr<>` around it).
    static GridExprAttr parseExpr(::mlir::AsmParser &parser);
    void printExpr(::llvm::raw_ostream &os, ::llvm::StringRef sep) const;
  }];
}

def Tile_GridAttr : Tile_Attr<"Grid", "grid"> {
  let summary = "a kernel's launch grid rule";
  let description = [{
    One grid expression (see `#tile.expr`) per grid axis, x first, 1 to 3
    of them; axes left out are 1. A kernel's `tile.grid`.

    ```mlir
    tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"::tilec::tile::GridExprAttr">:$axes);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Axis `i` (0..2): its expression, the literal 1 past the last given.
    GridExprAttr axis(unsigned i) const;
  }];
}

#endif // TILE_ATTRS_TD
