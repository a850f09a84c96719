// GEMMs on the other two tensor-core input types, as torch._int_mm and a
// tf32 torch.matmul compute them: A is MxK row-major, B is KxN column-major
// (the kernel reads Bt, NxK, row-major, and transposes its tiles). One
// 128x256 tile of C a program, 8 consumer warps. On sm_90a both run
// warp-specialized on TMA + wgmma, which reads 8-bit and tf32 operands
// K-major only (hence Bt); TMA needs 16-byte rows, so K must be a multiple
// of 16 (i8) or 4 (f32), else the kernel's plain twin runs.

// i8: C = A · B, i32 accumulation and output (wgmma m64n256k32.s32.s8.s8).
func.func @gemm_i8(%a: !tile.tensor<?x?xi8>, %bt: !tile.tensor<?x?xi8>, %c: !tile.tensor<?x?xi32>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 0), 256)>} {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c256 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xi8>
  %z = arith.constant dense<0> : !tile.tile<128x256xi32>
  %acc = scf.for %k0 = %c0 to %k step %c128 iter_args(%acc_i = %z) -> (!tile.tile<128x256xi32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xi8> -> !tile.tile<128x128xi8>
    %tbt = tile.load %bt[%n0, %k0] : !tile.tensor<?x?xi8> -> !tile.tile<256x128xi8>
    %tb = tile.transpose %tbt [1, 0] : !tile.tile<256x128xi8> -> !tile.tile<128x256xi8>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x128xi8>, !tile.tile<128x256xi8> -> !tile.tile<128x256xi32>
    scf.yield %d : !tile.tile<128x256xi32>
  }
  tile.store %acc, %c[%m0, %n0] : !tile.tile<128x256xi32>, !tile.tensor<?x?xi32>
  return
}

// f32 as tf32: C = A · B, f32 accumulation and output (wgmma m64n256k8,
// which reads the f32 bits as tf32: 10 mantissa bits, the rest dropped).
func.func @gemm_tf32(%a: !tile.tensor<?x?xf32>, %bt: !tile.tensor<?x?xf32>, %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 0), 256)>} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c256 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xf32>
  %z = arith.constant dense<0.0> : !tile.tile<128x256xf32>
  %acc = scf.for %k0 = %c0 to %k step %c32 iter_args(%acc_i = %z) -> (!tile.tile<128x256xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xf32> -> !tile.tile<128x32xf32>
    %tbt = tile.load %bt[%n0, %k0] : !tile.tensor<?x?xf32> -> !tile.tile<256x32xf32>
    %tb = tile.transpose %tbt [1, 0] : !tile.tile<256x32xf32> -> !tile.tile<32x256xf32>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x32xf32>, !tile.tile<32x256xf32> -> !tile.tile<128x256xf32>
    scf.yield %d : !tile.tile<128x256xf32>
  }
  tile.store %acc, %c[%m0, %n0] : !tile.tile<128x256xf32>, !tile.tensor<?x?xf32>
  return
}
