// Bundle loading: the container format and the metadata text (docs/BUNDLE.md).
#include "RuntimeTestUtil.h"

#include <cstdio>
#include <fstream>
#include <unistd.h>

using namespace tilec_test;

namespace {

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const size_t pos = s.find(from);
  EXPECT_NE(pos, std::string::npos) << "test bug: '" << from << "' not in metadata";
  if (pos != std::string::npos) s.replace(pos, from.size(), to);
  return s;
}

tilec_kernel* get_kernel(tilec_bundle* b, const char* name) {
  tilec_kernel* k = nullptr;
  EXPECT_TRUE(IsOk(tilec_bundle_get_kernel(b, name, &k)));
  return k;
}

tilec_param_info param(tilec_kernel* k, size_t i) {
  tilec_param_info p;
  std::memset(&p, 0, sizeof p);
  EXPECT_TRUE(IsOk(tilec_kernel_param(k, i, &p)));
  return p;
}

}  // namespace

// ---- good bundles ------------------------------------------------------------------

TEST(RuntimeBundle, DocExampleReadsBackEveryField) {
  BundlePtr b = load_ok(make_bundle(vector_add_meta()));
  ASSERT_TRUE(b);
  EXPECT_STREQ(tilec_bundle_arch(b.get()), "sm_90a");
  EXPECT_STREQ(tilec_bundle_metadata(b.get()), vector_add_meta());
  EXPECT_EQ(tilec_bundle_has_cubin(b.get()), 1);
  EXPECT_EQ(tilec_bundle_has_ptx(b.get()), 0);
  ASSERT_EQ(tilec_bundle_num_kernels(b.get()), 1u);
  EXPECT_STREQ(tilec_bundle_kernel_name(b.get(), 0), "vector_add");
  EXPECT_EQ(tilec_bundle_kernel_name(b.get(), 1), nullptr);

  tilec_kernel* k = get_kernel(b.get(), "vector_add");
  ASSERT_NE(k, nullptr);
  EXPECT_STREQ(tilec_kernel_name(k), "vector_add");
  EXPECT_EQ(tilec_kernel_threads(k), 128u);
  EXPECT_EQ(tilec_kernel_smem(k), 0u);
  uint32_t cluster[3] = {0, 0, 0};
  tilec_kernel_cluster(k, cluster);
  EXPECT_EQ(cluster[0], 1u);
  EXPECT_EQ(cluster[1], 1u);
  EXPECT_EQ(cluster[2], 1u);
  EXPECT_STREQ(tilec_kernel_grid_expr(k, 0), "cdiv(dim(0,0),1024)");
  EXPECT_STREQ(tilec_kernel_grid_expr(k, 1), "1");
  EXPECT_STREQ(tilec_kernel_grid_expr(k, 2), "1");
  EXPECT_EQ(tilec_kernel_grid_expr(k, 3), nullptr);
  ASSERT_EQ(tilec_kernel_num_params(k), 4u);

  const char* names[] = {"x", "y", "out"};
  for (size_t i = 0; i < 3; ++i) {
    tilec_param_info p = param(k, i);
    EXPECT_EQ(p.kind, TILEC_ARG_TENSOR);
    EXPECT_STREQ(p.name, names[i]);
    EXPECT_EQ(p.dtype, TILEC_DTYPE_F32);
    EXPECT_EQ(p.rank, 1);
    EXPECT_EQ(p.shape[0], TILEC_DYNAMIC);
    EXPECT_EQ(p.strides[0], 1);
    EXPECT_EQ(p.align, 16);
    EXPECT_EQ(p.tma, 0);
  }
  tilec_param_info alpha = param(k, 3);
  EXPECT_EQ(alpha.kind, TILEC_ARG_SCALAR);
  EXPECT_STREQ(alpha.name, "alpha");
  EXPECT_EQ(alpha.dtype, TILEC_DTYPE_F32);
  EXPECT_EQ(alpha.rank, 0);
  EXPECT_EQ(alpha.align, 0);

  // 3 tensors of rank 1 (ptr, extent, stride) + 1 scalar.
  EXPECT_EQ(tilec_kernel_abi_num_params(k), 10u);
}

TEST(RuntimeBundle, TmaClusterSmemAndStaticDims) {
  BundlePtr b = load_ok(make_bundle(gemm_meta()));
  ASSERT_TRUE(b);
  ASSERT_EQ(tilec_bundle_num_kernels(b.get()), 2u);
  EXPECT_STREQ(tilec_bundle_kernel_name(b.get(), 0), "gemm");
  EXPECT_STREQ(tilec_bundle_kernel_name(b.get(), 1), "tiny");

  tilec_kernel* k = get_kernel(b.get(), "gemm");
  EXPECT_EQ(tilec_kernel_threads(k), 384u);
  EXPECT_EQ(tilec_kernel_smem(k), 200000u);
  uint32_t cluster[3];
  tilec_kernel_cluster(k, cluster);
  EXPECT_EQ(cluster[0], 2u);
  EXPECT_EQ(cluster[1], 1u);
  EXPECT_EQ(cluster[2], 1u);
  EXPECT_STREQ(tilec_kernel_grid_expr(k, 0), "mul(cdiv(dim(0,0),128),2)");
  ASSERT_EQ(tilec_kernel_num_params(k), 5u);

  tilec_param_info a = param(k, 0);
  EXPECT_STREQ(a.name, "a");
  EXPECT_EQ(a.dtype, TILEC_DTYPE_BF16);
  EXPECT_EQ(a.rank, 2);
  EXPECT_EQ(a.shape[0], TILEC_DYNAMIC);
  EXPECT_EQ(a.shape[1], 4096);
  EXPECT_EQ(a.strides[0], TILEC_DYNAMIC);
  EXPECT_EQ(a.strides[1], 1);
  EXPECT_EQ(a.align, 128);
  EXPECT_EQ(a.tma, 1);
  EXPECT_EQ(a.box[0], 64);
  EXPECT_EQ(a.box[1], 64);
  EXPECT_EQ(a.swizzle, 128);
  EXPECT_EQ(a.fill, TILEC_FILL_ZERO);

  tilec_param_info bp = param(k, 1);
  EXPECT_EQ(bp.shape[0], 4096);
  EXPECT_EQ(bp.box[0], 128);
  EXPECT_EQ(bp.box[1], 64);
  EXPECT_EQ(bp.fill, TILEC_FILL_NAN);

  tilec_param_info c = param(k, 2);
  EXPECT_EQ(c.tma, 0);
  EXPECT_EQ(c.strides[1], TILEC_DYNAMIC);
  EXPECT_EQ(param(k, 3).dtype, TILEC_DTYPE_I32);
  EXPECT_EQ(param(k, 4).dtype, TILEC_DTYPE_BF16);

  // a, b: map + ptr + 2 extents + 2 strides; c: 5; k, alpha: 1 each.
  EXPECT_EQ(tilec_kernel_abi_num_params(k), 6u + 6u + 5u + 2u);

  tilec_kernel* tiny = get_kernel(b.get(), "tiny");
  EXPECT_EQ(tilec_kernel_smem(tiny), 0u);  // smem defaults to 0
  tilec_kernel_cluster(tiny, cluster);      // cluster defaults to 1 1 1
  EXPECT_EQ(cluster[0] * cluster[1] * cluster[2], 1u);
}

TEST(RuntimeBundle, ParamIndexOutOfRange) {
  BundlePtr b = load_ok(make_bundle(vector_add_meta()));
  tilec_kernel* k = get_kernel(b.get(), "vector_add");
  tilec_param_info p;
  EXPECT_TRUE(IsError(tilec_kernel_param(k, 4, &p), TILEC_ERROR_INVALID_ARGUMENT,
                      {"tilec_kernel_param", "index 4 is out of range"}));
}

TEST(RuntimeBundle, UnknownKernelListsAvailableNames) {
  BundlePtr b = load_ok(make_bundle(gemm_meta()));
  tilec_kernel* k = nullptr;
  EXPECT_TRUE(IsError(tilec_bundle_get_kernel(b.get(), "gemv", &k), TILEC_ERROR_NOT_FOUND,
                      {"no kernel 'gemv'", "available: gemm, tiny"}));
  EXPECT_EQ(k, nullptr);
}

TEST(RuntimeBundle, NullArgumentsAreErrorsNotCrashes) {
  tilec_bundle* b = nullptr;
  EXPECT_TRUE(IsError(tilec_bundle_load_memory(nullptr, 10, &b), TILEC_ERROR_INVALID_ARGUMENT,
                      {"data is NULL"}));
  std::string bytes = make_bundle(vector_add_meta());
  EXPECT_TRUE(IsError(tilec_bundle_load_memory(bytes.data(), bytes.size(), nullptr),
                      TILEC_ERROR_INVALID_ARGUMENT, {"out is NULL"}));
  EXPECT_TRUE(IsError(tilec_bundle_load_file(nullptr, &b), TILEC_ERROR_INVALID_ARGUMENT,
                      {"path is NULL"}));
  tilec_kernel* k = nullptr;
  EXPECT_TRUE(IsError(tilec_bundle_get_kernel(nullptr, "x", &k), TILEC_ERROR_INVALID_ARGUMENT));
  EXPECT_EQ(tilec_bundle_num_kernels(nullptr), 0u);
  EXPECT_EQ(tilec_bundle_arch(nullptr), nullptr);
  EXPECT_EQ(tilec_kernel_threads(nullptr), 0u);
  tilec_bundle_free(nullptr);
  tilec_status_free(nullptr);
  EXPECT_EQ(tilec_status_code(nullptr), TILEC_OK);
  EXPECT_STREQ(tilec_status_message(nullptr), "success");
}

TEST(RuntimeBundle, PtxOnlyAndUnknownSections) {
  BundlePtr b = load_ok(make_bundle_sections({{"XTRA", "ignored payload"},
                                              {"META", vector_add_meta()},
                                              {"PTX ", ".version 8.0\n"},
                                              {"ZZZZ", ""}}));
  ASSERT_TRUE(b);
  EXPECT_EQ(tilec_bundle_has_cubin(b.get()), 0);
  EXPECT_EQ(tilec_bundle_has_ptx(b.get()), 1);
}

TEST(RuntimeBundle, ToleratesCrlfTabsAndComments) {
  std::string meta =
      "# produced by a test\r\n"
      "tilec-bundle 1\r\n"
      "arch\tsm_100a\r\n"
      "   # indented comment\r\n"
      "kernel k\r\n"
      "threads  64\r\n"
      "grid 1 1 1\r\n"
      "end\r\n";
  BundlePtr b = load_ok(make_bundle(meta));
  ASSERT_TRUE(b);
  EXPECT_STREQ(tilec_bundle_arch(b.get()), "sm_100a");
  tilec_kernel* k = get_kernel(b.get(), "k");
  EXPECT_EQ(tilec_kernel_threads(k), 64u);
  EXPECT_EQ(tilec_kernel_num_params(k), 0u);
}

TEST(RuntimeBundle, LoadFile) {
  char path[] = "/tmp/tilec-runtime-test-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  {
    std::ofstream f(path, std::ios::binary);
    f << make_bundle(vector_add_meta());
  }
  tilec_bundle* b = nullptr;
  EXPECT_TRUE(IsOk(tilec_bundle_load_file(path, &b)));
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(tilec_bundle_num_kernels(b), 1u);
  tilec_bundle_free(b);

  // A malformed file names the file in the message.
  {
    std::ofstream f(path, std::ios::binary);
    f << "TILECBN1";
  }
  b = nullptr;
  EXPECT_TRUE(IsError(tilec_bundle_load_file(path, &b), TILEC_ERROR_BAD_BUNDLE,
                      {"tilec_bundle_load_file", path, "truncated header"}));
  std::remove(path);
  EXPECT_TRUE(IsError(tilec_bundle_load_file(path, &b), TILEC_ERROR_NOT_FOUND,
                      {"cannot open", path, "No such file"}));
  EXPECT_EQ(b, nullptr);
  // Not a regular file: a device would be read until memory ran out (it
  // was, before the check), a directory is no bundle.
  EXPECT_TRUE(IsError(tilec_bundle_load_file("/dev/zero", &b), TILEC_ERROR_INVALID_ARGUMENT,
                      {"tilec_bundle_load_file", "/dev/zero", "is not a regular file"}));
  EXPECT_TRUE(IsError(tilec_bundle_load_file("/tmp", &b), TILEC_ERROR_INVALID_ARGUMENT,
                      {"'/tmp' is not a regular file"}));
  EXPECT_EQ(b, nullptr);
}

// ---- malformed containers ------------------------------------------------------------

TEST(RuntimeBundleContainer, Empty) {
  EXPECT_TRUE(IsBadBundle("", {"tilec_bundle_load_memory", "truncated header: 0 bytes"}));
}

TEST(RuntimeBundleContainer, TruncatedHeader) {
  EXPECT_TRUE(IsBadBundle(make_bundle(vector_add_meta()).substr(0, 12),
                          {"truncated header: 12 bytes"}));
}

TEST(RuntimeBundleContainer, BadMagic) {
  std::string bytes = make_bundle_sections({{"META", vector_add_meta()}}, 1, "TILECBN2");
  EXPECT_TRUE(IsBadBundle(bytes, {"bad magic"}));
  EXPECT_TRUE(IsBadBundle("\x7f" "ELF and then some more bytes", {"bad magic"}));
}

TEST(RuntimeBundleContainer, WrongVersion) {
  std::string bytes = make_bundle_sections({{"META", vector_add_meta()}, {"CUBN", "x"}}, 4);
  EXPECT_TRUE(IsBadBundle(bytes, {"unsupported bundle format version 4 (expected 1 to 3)"}));
  bytes = make_bundle_sections({{"META", vector_add_meta()}, {"CUBN", "x"}}, 0);
  EXPECT_TRUE(IsBadBundle(bytes, {"unsupported bundle format version 0 (expected 1 to 3)"}));
}

TEST(RuntimeBundleContainer, SectionHeaderPastEnd) {
  std::string bytes = make_bundle(vector_add_meta());
  bytes[12] = 3;  // claims 3 sections, has 2
  EXPECT_TRUE(IsBadBundle(bytes, {"section 2 of 3", "header", "runs past the end"}));
}

TEST(RuntimeBundleContainer, PayloadPastEnd) {
  std::string bytes = make_bundle(vector_add_meta());
  EXPECT_TRUE(IsBadBundle(bytes.substr(0, 40), {"section 0 ('META')", "runs past the end"}));
  // A payload size so large that offset + size would overflow.
  std::string huge = bytes;
  for (int i = 0; i < 8; ++i) huge[24 + i] = '\xff';
  EXPECT_TRUE(IsBadBundle(huge, {"section 0 ('META')", "runs past the end"}));
}

TEST(RuntimeBundleContainer, MissingMeta) {
  EXPECT_TRUE(IsBadBundle(make_bundle_sections({{"CUBN", fake_cubin()}}), {"no META section"}));
  EXPECT_TRUE(IsBadBundle(make_bundle_sections({}), {"no META section"}));
}

TEST(RuntimeBundleContainer, DuplicateMeta) {
  EXPECT_TRUE(IsBadBundle(make_bundle_sections({{"META", vector_add_meta()},
                                                {"META", vector_add_meta()},
                                                {"CUBN", fake_cubin()}}),
                          {"more than one META section"}));
}

TEST(RuntimeBundleContainer, NoMachineCode) {
  EXPECT_TRUE(IsBadBundle(make_bundle(vector_add_meta(), false), {"no CUBN or 'PTX ' section"}));
}

TEST(RuntimeBundleContainer, EmptyCubin) {
  EXPECT_TRUE(IsBadBundle(make_bundle_sections({{"META", vector_add_meta()}, {"CUBN", ""}}),
                          {"empty CUBN section"}));
}

// ---- bundles of several code modules (format version 2) ---------------------------

TEST(RuntimeBundleContainer, SeveralModules) {
  BundlePtr b = load_ok(make_bundle_sections({{"META", two_module_meta()},
                                              {"CUBN", fake_cubin_named("FAKECUB0")},
                                              {"PTX ", "// module 0"},
                                              {"CUBN", fake_cubin_named("FAKECUB1")},
                                              {"PTX ", "// module 1"}},
                                             2));
  ASSERT_TRUE(b);
  EXPECT_EQ(tilec_bundle_num_modules(b.get()), 2u);
  EXPECT_EQ(tilec_bundle_has_cubin(b.get()), 1);
  EXPECT_EQ(tilec_bundle_has_ptx(b.get()), 1);
  EXPECT_EQ(tilec_bundle_num_kernels(b.get()), 2u);
  EXPECT_EQ(tilec_bundle_num_modules(nullptr), 0u);
  BundlePtr one = load_ok(make_bundle(vector_add_meta()));
  EXPECT_EQ(tilec_bundle_num_modules(one.get()), 1u);
}

TEST(RuntimeBundleContainer, ModuleIndexBeyondTheModules) {
  EXPECT_TRUE(IsBadBundle(make_bundle(two_module_meta()),
                          {"metadata line 17: kernel 'second' is in module 1 but the bundle "
                           "has 1 module"}));
  EXPECT_TRUE(load_ok(
      make_bundle_sections({{"META", two_module_meta()}, {"PTX ", "// 0"}, {"PTX ", "// 1"}}, 2)));
}

TEST(RuntimeBundleContainer, ModuleSectionCountsDiffer) {
  EXPECT_TRUE(IsBadBundle(make_bundle_sections({{"META", two_module_meta()},
                                                {"CUBN", fake_cubin()},
                                                {"CUBN", fake_cubin()},
                                                {"PTX ", "// only one"}},
                                               2),
                          {"2 CUBN sections but 1 'PTX ' sections (one of each per module)"}));
}

// Format version 3: an empty CUBN is a module carried as PTX alone (a lazy
// member), which needs its 'PTX ' section; versions 1 and 2 refuse it.
TEST(RuntimeBundleContainer, PtxOnlyModulesNeedVersion3) {
  BundlePtr b = load_ok(ptx_only_module_bundle());
  ASSERT_TRUE(b);
  EXPECT_EQ(tilec_bundle_num_modules(b.get()), 2u);
  EXPECT_EQ(tilec_bundle_has_cubin(b.get()), 1);
  EXPECT_TRUE(IsBadBundle(ptx_only_module_bundle(2), {"empty CUBN section"}));
  EXPECT_TRUE(IsBadBundle(make_bundle_sections({{"META", two_module_meta()},
                                                {"CUBN", fake_cubin()},
                                                {"CUBN", ""}},
                                               3),
                          {"module 1 has an empty CUBN section and no 'PTX ' section"}));
}

TEST(RuntimeBundleContainer, RepeatedCodeSectionsNeedVersion2) {
  EXPECT_TRUE(IsBadBundle(
      make_bundle_sections({{"META", two_module_meta()}, {"CUBN", fake_cubin()}, {"CUBN", fake_cubin()}}),
      {"more than one CUBN section (format version 1)"}));
}

TEST(RuntimeBundleMetadata, BadModuleLine) {
  std::string meta = vector_add_meta();
  EXPECT_TRUE(IsBadBundle(make_bundle(replace(meta, "cluster 1 1 1\n", "cluster 1 1 1\nmodule x\n")),
                          {"metadata line 7: bad module index 'x'"}));
  EXPECT_TRUE(IsBadBundle(
      make_bundle(replace(meta, "cluster 1 1 1\n", "cluster 1 1 1\nmodule 0\nmodule 0\n")),
      {"metadata line 8: duplicate 'module' in kernel 'vector_add'"}));
  EXPECT_TRUE(IsBadBundle(make_bundle(replace(meta, "cluster 1 1 1\n", "cluster 1 1 1\nmodule -1\n")),
                          {"bad module index '-1' (expected an integer in 0..65535)"}));
}

TEST(RuntimeBundleContainer, NulInMetadata) {
  std::string meta = vector_add_meta();
  meta[5] = '\0';
  EXPECT_TRUE(IsBadBundle(make_bundle(meta), {"META section contains a NUL byte at offset 5"}));
}

TEST(RuntimeBundleContainer, BinaryTagIsShownInHex) {
  std::string bytes = make_bundle_sections({{std::string("\x01\x02\x03\x04", 4), "abc"}});
  bytes.resize(34);  // the 3-byte payload would end at 35
  EXPECT_TRUE(IsBadBundle(bytes, {"section 0 ('0x01020304')"}));
}

// ---- malformed metadata ----------------------------------------------------------------

struct BadMeta {
  const char* name;
  std::string meta;
  const char* line;     // expected "metadata line N" prefix, or nullptr
  const char* message;  // expected substring
};

std::ostream& operator<<(std::ostream& os, const BadMeta& c) { return os << c.name; }

class RuntimeBadMetadata : public ::testing::TestWithParam<BadMeta> {};

TEST_P(RuntimeBadMetadata, IsRejectedWithLineAndReason) {
  const BadMeta& c = GetParam();
  if (c.line) {
    EXPECT_TRUE(IsBadBundle(make_bundle(c.meta), {c.line, c.message}));
  } else {
    EXPECT_TRUE(IsBadBundle(make_bundle(c.meta), {c.message}));
  }
}

namespace {

const std::string kVA = vector_add_meta();
const std::string kScalarLine = "param scalar alpha f32\n";
const std::string kXLine = "param tensor x f32 1 shape ? strides 1 align 16\n";
const std::string kGemm = gemm_meta();
const std::string kALine =
    "param tensor a bf16 2 shape ? 4096 strides ? 1 align 128 tma 64 64 swizzle 128 fill zero\n";

std::vector<BadMeta> bad_metadata_cases() {
  return {
      {"Empty", "", nullptr, "metadata is empty"},
      {"OnlyComments", "# nothing\n\n", nullptr, "metadata is empty"},
      {"NoHeader", replace(kVA, "tilec-bundle 1\n", ""), "metadata line 1",
       "expected 'tilec-bundle 1' as the first line, found 'arch'"},
      {"WrongMetadataVersion", replace(kVA, "tilec-bundle 1", "tilec-bundle 2"),
       "metadata line 1", "unsupported metadata version '2'"},
      {"DuplicateHeader", replace(kVA, "arch sm_90a\n", "arch sm_90a\ntilec-bundle 1\n"),
       "metadata line 3", "duplicate 'tilec-bundle'"},
      {"MissingArch", replace(kVA, "arch sm_90a\n", ""), "metadata line 2",
       "'arch' must come before the first kernel"},
      {"ArchAfterKernel", kVA + "arch sm_90a\n", "metadata line 13", "duplicate 'arch'"},
      {"BadArch", replace(kVA, "sm_90a", "hopper"), "metadata line 2", "bad arch 'hopper'"},
      {"UnknownDtype", replace(kVA, "param scalar alpha f32", "param scalar alpha f17"),
       "metadata line 11", "unknown dtype 'f17'"},
      {"RankZero", replace(kVA, "x f32 1 shape ? strides 1", "x f32 0 shape strides"),
       "metadata line 8", "rank '0' out of range (expected 1..5)"},
      {"RankSix", replace(kVA, "x f32 1 shape ? strides 1", "x f32 6 shape ? ? ? ? ? ? strides 1 1 1 1 1 1"),
       "metadata line 8", "rank '6' out of range"},
      {"ParamOutsideKernel", kVA + kScalarLine, "metadata line 13", "'param' outside a kernel block"},
      {"ThreadsOutsideKernel", replace(kVA, "kernel vector_add\n", "threads 5\nkernel vector_add\n"),
       "metadata line 3", "'threads' outside a kernel block"},
      {"MissingEnd", replace(kVA, "end\n", ""), "metadata line 3",
       "kernel 'vector_add' has no 'end'"},
      {"NestedKernel", replace(kVA, "threads 128\n", "threads 128\nkernel other\n"),
       "metadata line 5", "'kernel' inside kernel 'vector_add'"},
      {"DuplicateKernel", kVA + "kernel vector_add\nthreads 1\ngrid 1 1 1\nend\n",
       "metadata line 13", "duplicate kernel 'vector_add'"},
      {"BadKernelName", replace(kVA, "kernel vector_add", "kernel 9lives"), "metadata line 3",
       "bad kernel name '9lives'"},
      {"ThreadsZero", replace(kVA, "threads 128", "threads 0"), "metadata line 4",
       "bad threads value '0' (expected an integer in 1..1024)"},
      {"ThreadsTooMany", replace(kVA, "threads 128", "threads 2048"), "metadata line 4",
       "bad threads value '2048'"},
      {"ThreadsNotANumber", replace(kVA, "threads 128", "threads 12x"), "metadata line 4",
       "bad threads value '12x'"},
      {"DuplicateThreads", replace(kVA, "threads 128\n", "threads 128\nthreads 64\n"),
       "metadata line 5", "duplicate 'threads'"},
      {"MissingThreads", replace(kVA, "threads 128\n", ""), "metadata line 11",
       "kernel 'vector_add' has no 'threads' line"},
      {"MissingGrid", replace(kVA, "grid cdiv(dim(0,0),1024) 1 1\n", ""), "metadata line 11",
       "has no 'grid' line"},
      {"SmemNegative", replace(kVA, "smem 0", "smem -1"), "metadata line 5", "bad smem value '-1'"},
      {"ClusterTwoValues", replace(kVA, "cluster 1 1 1", "cluster 1 1"), "metadata line 6",
       "expected cluster dimension after '1'"},
      {"ClusterZero", replace(kVA, "cluster 1 1 1", "cluster 0 1 1"), "metadata line 6",
       "bad cluster dimension '0'"},
      {"GridTwoExprs", replace(kVA, "grid cdiv(dim(0,0),1024) 1 1", "grid cdiv(dim(0,0),1024) 1"),
       "metadata line 7", "expected a grid expression for z"},
      {"GridBadExpr", replace(kVA, "cdiv(dim(0,0),1024)", "cdiv(dim(0,0),)"), "metadata line 7",
       "grid x: bad grid expression 'cdiv(dim(0,0),)'"},
      {"GridUnknownFunction", replace(kVA, "cdiv(dim(0,0),1024)", "pow(2,3)"), "metadata line 7",
       "unknown function 'pow'"},
      {"GridParamDoesNotExist", replace(kVA, "cdiv(dim(0,0),1024)", "dim(7,0)"),
       "metadata line 12", "parameter 7 does not exist (the kernel has 4 params)"},
      {"GridDimOfScalar", replace(kVA, "cdiv(dim(0,0),1024)", "dim(3,0)"), "metadata line 12",
       "dim(3,0) names scalar param 'alpha'"},
      {"GridDimOutOfRank", replace(kVA, "cdiv(dim(0,0),1024)", "dim(0,1)"), "metadata line 12",
       "dim(0,1) is out of range for rank-1 tensor 'x'"},
      {"GridArgOfTensor", replace(kVA, "cdiv(dim(0,0),1024)", "arg(0)"), "metadata line 12",
       "arg(0) names 'x', which is not an integer scalar"},
      {"GridArgOfFloat", replace(kVA, "cdiv(dim(0,0),1024)", "arg(3)"), "metadata line 12",
       "arg(3) names 'alpha', which is not an integer scalar"},
      {"UnknownKeyword", replace(kVA, "smem 0\n", "smem 0\nregisters 64\n"), "metadata line 6",
       "unknown keyword 'registers'"},
      {"BadParamKind", replace(kVA, "param scalar alpha", "param vector alpha"), "metadata line 11",
       "bad param kind 'vector'"},
      {"BadParamName", replace(kVA, "param scalar alpha", "param scalar 1alpha"),
       "metadata line 11", "bad param name '1alpha'"},
      {"DuplicateParam", replace(kVA, "param scalar alpha", "param scalar x"), "metadata line 11",
       "duplicate param 'x'"},
      {"MissingShapeKeyword", replace(kVA, kXLine, "param tensor x f32 1 ? strides 1 align 16\n"),
       "metadata line 8", "expected 'shape', found '?'"},
      {"TooFewExtents", replace(kVA, kXLine, "param tensor x f32 2 shape ? strides 1 align 16\n"),
       "metadata line 8", "bad extent 1 'strides'"},
      {"NegativeExtent", replace(kVA, kXLine, "param tensor x f32 1 shape -4 strides 1 align 16\n"),
       "metadata line 8", "bad extent 0 '-4' (expected a non-negative integer or '?')"},
      {"MissingAlign", replace(kVA, kXLine, "param tensor x f32 1 shape ? strides 1\n"),
       "metadata line 8", "expected 'align' after '1'"},
      {"AlignNotPowerOfTwo", replace(kVA, "strides 1 align 16\nparam tensor y", "strides 1 align 24\nparam tensor y"),
       "metadata line 8", "align 24 is not a power of two"},
      {"TrailingToken", replace(kVA, "param scalar alpha f32", "param scalar alpha f32 extra"),
       "metadata line 11", "unexpected 'extra'"},
      {"TrailingTokenAfterEnd", replace(kVA, "end\n", "end now\n"), "metadata line 12",
       "unexpected 'now'"},
      {"NoKernels", "tilec-bundle 1\narch sm_90a\n", nullptr, "metadata declares no kernels"},
      {"TmaMissingBox", replace(kGemm, kALine, "param tensor a bf16 2 shape ? 4096 strides ? 1 align 128 tma 64 swizzle 128 fill zero\n"),
       "metadata line 10", "bad tma box 1 'swizzle'"},
      {"TmaBoxTooLarge", replace(kGemm, "tma 64 64 swizzle 128 fill zero", "tma 512 64 swizzle 128 fill zero"),
       "metadata line 10", "bad tma box 0 '512' (expected an integer in 1..256)"},
      {"TmaBadSwizzle", replace(kGemm, "swizzle 128 fill zero", "swizzle 256 fill zero"),
       "metadata line 10", "bad swizzle '256'"},
      {"TmaBadFill", replace(kGemm, "fill zero", "fill one"), "metadata line 10", "bad fill 'one'"},
      {"TmaMissingFill", replace(kGemm, " fill zero", ""), "metadata line 10",
       "expected 'fill' after '128'"},
      {"PlainUnknown", replace(kGemm, "cluster 2 1 1\n", "cluster 2 1 1\nplain nosuch\n"),
       "metadata line 9", "kernel 'gemm' plain 'nosuch': no such other kernel"},
      {"PlainParamsDiffer", replace(kGemm, "cluster 2 1 1\n", "cluster 2 1 1\nplain tiny\n"),
       "metadata line 9", "kernel 'gemm' plain 'tiny': its parameters differ"},
      {"VariantUnknown", replace(kGemm, "cluster 2 1 1\n", "cluster 2 1 1\nvariant nosuch\ncost 1\n"),
       "metadata line 9", "kernel 'gemm' variant 'nosuch': no such other kernel"},
      {"VariantParamsDiffer", replace(kGemm, "cluster 2 1 1\n", "cluster 2 1 1\nvariant tiny\ncost 1\n"),
       "metadata line 9", "kernel 'gemm' variant 'tiny': its parameters differ"},
      {"VariantWithoutCost",
       replace(kVA, "cluster 1 1 1\n", "cluster 1 1 1\nvariant va2\n") +
           replace(replace(kVA, "tilec-bundle 1\narch sm_90a\n", ""), "kernel vector_add", "kernel va2"),
       "metadata line 7", "kernel 'vector_add' variant 'va2': has no 'cost'"},
      {"KernelWithoutCost",
       replace(kVA, "cluster 1 1 1\n", "cluster 1 1 1\nvariant va2\n") +
           replace(replace(kVA, "tilec-bundle 1\narch sm_90a\n", ""), "kernel vector_add",
                   "kernel va2\ncost 1"),
       "metadata line 3", "kernel 'vector_add' has variants but no 'cost'"},
      {"DuplicateVariant", replace(kGemm, "cluster 2 1 1\n", "cluster 2 1 1\nvariant tiny\nvariant tiny\n"),
       "metadata line 10", "duplicate variant 'tiny' in kernel 'gemm'"},
      {"DuplicateCost", replace(kGemm, "cluster 2 1 1\n", "cluster 2 1 1\ncost 1\ncost 2\n"),
       "metadata line 10", "duplicate 'cost' in kernel 'gemm'"},
      {"BadCost", replace(kGemm, "cluster 2 1 1\n", "cluster 2 1 1\ncost mul(sms)\n"),
       "metadata line 9", "cost: "},
      {"StrideInGrid", replace(kVA, "grid cdiv(dim(0,0),1024) 1 1", "grid stride(0,0) 1 1"),
       "kernel 'vector_add' grid x 'stride(0,0)'", "stride(0,0) is for costs only"},
      {"TmaInnerBoxNot16Bytes", replace(kGemm, "tma 64 64 swizzle 128", "tma 64 4 swizzle none"),
       "metadata line 10", "tma box innermost extent 4 x 2 bytes is not a multiple of 16 bytes"},
      {"TmaInnerBoxExceedsSwizzle", replace(kGemm, "tma 64 64 swizzle 128", "tma 64 64 swizzle 64"),
       "metadata line 10", "tma box innermost extent is 128 bytes, more than the swizzle span of 64 bytes"},
      {"TmaNanFillOnIntegers", replace(kGemm, "param tensor b bf16", "param tensor b i32"),
       "metadata line 11", "tma fill nan needs an f16, bf16, f32 or f64 tensor, not i32"},
      {"TmaStaticInnerStrideNotOne", replace(kGemm, "strides ? 1 align 128", "strides ? 2 align 128"),
       "metadata line 10", "tma tensor needs innermost stride 1, metadata has 2"},
      {"TmaStaticStrideNot16Bytes", replace(kGemm, "strides ? 1 align 128", "strides 4 1 align 128"),
       "metadata line 10", "tma stride 0 (4 elements) is not a multiple of 16 bytes"},
  };
}

}  // namespace

INSTANTIATE_TEST_SUITE_P(Cases, RuntimeBadMetadata, ::testing::ValuesIn(bad_metadata_cases()),
                         [](const ::testing::TestParamInfo<BadMeta>& info) {
                           return std::string(info.param.name);
                         });
