// The default rule set (resources/rules/default.json): every ordering hazard is pinned here.
// Names marked "real" are copied from the traces in datasets/profiles (shortened where the
// tail does not matter); the others are the documented names of kernels that are not in the
// bundled traces.
#include <gtest/gtest.h>

#include <string>

#include "core/analysis/ruleset.h"

namespace reach_test_defaultrules_test {  // unity builds: this file's names stay its own

using namespace reach;

namespace {

struct Case {
    const char* name;
    Category category;
    const char* family;
    const char* why;
};

constexpr Category kLib = Category::LibraryOptimized;
constexpr Category kAddr = Category::Addressable;
constexpr Category kOver = Category::Overhead;

void check(const std::vector<Case>& cases) {
    static const RuleSet def = RuleSet::builtinDefault();
    for (const Case& c : cases) {
        auto m = def.classify(c.name, ActivityKind::Kernel);
        EXPECT_EQ(categoryKey(m.category), categoryKey(c.category)) << c.why << "\n  " << c.name;
        EXPECT_EQ(m.family, c.family) << c.why << "\n  " << c.name;
    }
}

}  // namespace

TEST(DefaultRules, IsEmbeddedAndNamed) {
    RuleSet def = RuleSet::builtinDefault();
    EXPECT_EQ(def.name(), "reach-default");
    EXPECT_GE(def.rules().size(), 30u);
    for (const Rule& r : def.rules())
        EXPECT_FALSE(r.note.empty()) << r.pattern;
}

TEST(DefaultRules, VendorGemmFamilies) {
    check({
        {"nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", kLib, "gemm", "real cuBLAS nvjet"},
        {"nvjet_sm90_tst_64x8_64x16_4x1_v_bz_splitK_bias_TNT", kLib, "gemm", "real nvjet split-K"},
        {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_warpgroupsize1x1x1_execute_"
         "segment_k_off_kernel__5x_cublas",
         kLib, "gemm", "real sm90 xmma gemm"},
        {"ampere_sgemm_128x64_nn", kLib, "gemm", "real"},
        {"ampere_gcgemm_64x64_nt", kLib, "gemm", "real complex gemm"},
        {"void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_64x3_tn_align2>("
         "cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_64x3_tn_align2::Params)",
         kLib, "gemm", "real cutlass inside cuBLAS"},
        {"void cutlass::Kernel2<cutlass_75_wmma_tensorop_bf16_s161616gemm_bf16_32x32_32x1_tn_"
         "align1>(cutlass_75_wmma_tensorop_bf16_s161616gemm_bf16_32x32_32x1_tn_align1::Params)",
         kLib, "gemm", "real wmma cutlass"},
        {"void cublasLt::splitKreduce_kernel<32, 16, int, float, __nv_bfloat16, float, "
         "__nv_bfloat16, false, float, __nv_bfloat16, __nv_bfloat16, true, true, false, false>("
         "cublasLt::cublasSplitKParams<float>, float const*)",
         kLib, "gemm", "real: split-K reduce belongs to the GEMM, not to reductions"},
        {"void splitKreduce_kernel<float, float, float, float, true, false, false>("
         "cublasSplitKParams<float>, float const*)",
         kLib, "gemm", "real: old cuBLAS split-K reduce contains 'reduce_kernel'"},
        {"void epilogue::impl::globalKernel<float, float, float, true, true>(int, int, long, "
         "float*, cublasLtEpilogue_t, int)",
         kLib, "gemm", "real cuBLASLt epilogue"},
        {"void sgemm_largek_lds64<true, true, 6, 3, 4, 5, 2, 66>(float*, float const*)", kLib,
         "gemm", "real"},
        {"void gemvNSP_kernel<float, float, float, float, 1, 16, 4, 1024, cublasGemvParams<"
         "cublasGemvTensorStridedBatched<float const>, float> >(cublasGemvParams<float>)",
         kLib, "gemv", "real gemv"},
        {"std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float, float, "
         "float, float, false, true, true, false, 7, cublasGemvParams<float> >(cublasGemvParams)",
         kLib, "gemv", "real gemv not starting with void"},
        {"Cijk_Ailk_Bljk_BBS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0", kLib, "gemm",
         "hipBLASLt on AMD"},
        {"void cutlass::gemm::kernel::GemmLayernormMainloopFusion<float>(Params)", kLib, "gemm",
         "a GEMM with a fused layernorm stays a GEMM: gemm before norm"},
    });
}

TEST(DefaultRules, ConvolutionBeforeGemm) {
    check({
        {"void cutlass__5x_cudnn::Kernel<cutlass_tensorop_bf16_s16816fprop_optimized_bf16_256x64_"
         "32x4_nhwc_align8>(cutlass_tensorop_bf16_s16816fprop_optimized_bf16_256x64_32x4_nhwc_"
         "align8::Params)",
         kLib, "conv", "real cutlass fprop inside cuDNN is conv, not gemm"},
        {"sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x64_"
         "warpgroupsize1x1x1_g1_execute_segment_k_off_kernel__5x_cudnn",
         kLib, "conv", "real implicit gemm conv contains 'gemm'"},
        {"sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_"
         "tilesize128x128x16"
         "_stage4_warpsize2x2x1_g1_tensor16x8x8_alignc4_execute_kernel_cudnn",
         kLib, "conv", "real"},
        {"sm80_xmma_dgrad_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize64x64x64", kLib,
         "conv", "dgrad"},
        {"sm80_xmma_wgrad_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize64x64x64", kLib,
         "conv", "wgrad"},
        {"cudnn_ampere_scudnn_128x64_relu_xregs_large_nn_v1", kLib, "conv", "real scudnn"},
        {"void nhwcAddPaddingKernel<__nv_bfloat16, __nv_bfloat16, float, true, "
         "(cudnnKernelDataType_t)0>(int, int, __nv_bfloat16 const*, cudnn::reduced_divisor)",
         kLib, "conv", "real cuDNN padding inside a convolution call"},
        {"void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true, "
         "(cudnnKernelDataType_t)2>(cudnn::ops::nchw2nhwc_params_t<float>, float const*, float*)",
         kLib, "conv", "real cuDNN layout transform, not an addressable transpose"},
        {"void cask_cudnn::computeOffsetsKernel<false, false>(cask_cudnn::ComputeOffsetsParams)",
         kLib, "conv", "real"},
        {"void fft2d_r2c_32x32<float, false, 5u, true>(float2*, float const*, int, "
         "cudnn::reduced_divisor, bool, int2, int, int)",
         kLib, "fft", "real cuDNN FFT convolution"},
        {"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>(float, float)",
         kAddr, "norm", "cuDNN batch norm is a norm: before the generic cuDNN rule"},
    });
}

TEST(DefaultRules, AttentionBeforeConvSoftmaxAndReductions) {
    check({
        {"cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64_4x1x1_"
         "cga1x1x1"
         "_kernel0_0",
         kLib, "attention", "real cuDNN SDPA: 'fprop' must not make it conv"},
        {"cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16_knob_26_64x64x64_1x4x1_"
         "cga1x1x1_kernel0_0",
         kLib, "attention", "real"},
        {"void cudnn::fusion::compute_dot_do_o_specialized<true, 64>(void const*, void const*)",
         kLib, "attention", "real SDPA backward helper"},
        {"void cudnn::fusion::fmha_reduce_head<true>(void const*, void*, unsigned int)", kLib,
         "attention", "real: 'reduce' inside an attention helper"},
        {"void cudnn::fusion::lean_reduction_kernel<false, false, false>(void*, float*)", kLib,
         "attention", "real: 'reduction' inside an attention helper"},
        {"void cudnn::fusion::convert_dq_to_16bits<true>(void const*, void*, unsigned int)", kLib,
         "attention", "real: 'conv' prefix in 'convert'"},
        {"at::cuda::philox::unpack_cudnn(at::PhiloxCudaState, long*, long*)", kLib, "attention",
         "real: dropout seed for cuDNN attention"},
        {"void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128,"
         " 4, false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, "
         "4, cutlass::bfloat16_t> >, false, false, false, false, false, true, "
         "false>(pytorch_flash::"
         "Flash_fwd_params)",
         kLib, "attention", "real FlashAttention mentions cutlass: attention before gemm"},
        {"void flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, false, "
         "cutlass::half_t>, true, false, false>(Flash_fwd_params)",
         kLib, "attention", "FlashAttention 2 split-kv"},
        {"fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<"
         "cutlass::bfloat16_t, cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)",
         kLib, "attention", "memory-efficient attention"},
        {"void flash::flash_fwd_kernel_softmax_lse<Flash_fwd_kernel_traits>(Flash_fwd_params)",
         kLib, "attention", "'softmax' inside an attention kernel: attention before softmax"},
        {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
         "at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, float const*, int)",
         kAddr, "softmax", "real plain softmax"},
        {"void (anonymous namespace)::softmax_warp_forward<float, float, float, 1, false, false>("
         "float*, float const*, int, int, int, bool const*, int, bool)",
         kAddr, "softmax", "real"},
    });
}

TEST(DefaultRules, TritonByKindBeforeOpNames) {
    check({
        {"triton_poi_fused_gelu_native_dropout_view_15", kAddr, "elementwise", "real"},
        {"triton_per_fused__to_copy_add_clone_native_dropout_native_layer_norm_native_layer_norm_"
         "backward_transpose_view_16",
         kAddr, "reduction", "real: layer_norm inside a fused triton name"},
        {"triton_red_fused__unsafe_view_add_clone_select_backward_squeeze_sum_transpose_unsqueeze_"
         "view_10",
         kAddr, "reduction", "real"},
        {"triton_poi_fused__native_batch_norm_legit_no_training_add_relu_4", kAddr, "elementwise",
         "real: batch_norm in a triton pointwise name"},
        {"triton_poi_fused_convolution_relu_3", kAddr, "elementwise",
         "Inductor's conv epilogue is not the convolution"},
        {"triton_per_fused__softmax_0", kAddr, "reduction", "softmax fused by Inductor"},
        {"triton_tem_fused_mm_0", kLib, "gemm", "Inductor GEMM template (tem before poi)"},
        {"triton_tem_fused_addmm_relu_2", kLib, "gemm", "template GEMM with a relu epilogue"},
        {"triton_tem_fused_convolution_1", kLib, "conv", "Inductor conv template"},
        {"triton_tem_fused_flex_attention_0", kLib, "attention", "flex attention template"},
        {"triton_poi_fused_add_cos_sin_0", kAddr, "elementwise", "real (driver-API launch)"},
        {"triton_poi_fused_all_gather_into_tensor_copy_0", kAddr, "elementwise",
         "a triton copy for a collective is still a triton kernel"},
    });
}

TEST(DefaultRules, EmbeddingAndFbgemmBeforeGemmAndOptimizer) {
    check({
        {"void fbgemm_gpu::permute_2D_data_kernel<false, int, int, decltype(nullptr)>(int, int)",
         kAddr, "embedding", "real: fbgemm contains 'gemm'"},
        {"void fbgemm_gpu::(anonymous namespace)::_compute_FP8_quantize_cuda_kernel<float>(float "
         "const*, float const*, int, int, unsigned char*, bool)",
         kAddr, "quant", "real: FP8 quantize (for embedding comms) is a quantization kernel"},
        {"void at::native::vectorized_elementwise_kernel<4, fbgemm_gpu::_float_to_hfp8_gpu(at::"
         "Tensor const&, long, long, double)::{lambda(float)#1}, at::detail::Array<char*, 2> "
         ">(int)",
         kAddr, "embedding", "real: fbgemm inside an elementwise kernel"},
        {"void split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_cta_per_row_1<"
         "c10::Half, float, c10::Half, 2ul, 32>(at::GenericPackedTensorAccessor<float, 2ul>)",
         kAddr, "embedding", "real: 'adagrad' in an embedding backward is not the optimizer"},
        {"void split_embedding_codegen_forward_unweighted_kernel<c10::Half, c10::Half, float, "
         "false, long, 2ul, 32ul>(at::GenericPackedTensorAccessor<c10::Half, 1ul>)",
         kAddr, "embedding", "real TBE forward"},
        {"void permute_pooled_embs_kernel<float>(float const*, long const*, long const*, long "
         "const*, float*, long, long, long)",
         kAddr, "embedding", "real: 'pooled' is not pooling"},
        {"void at::native::(anonymous namespace)::EmbeddingBag_updateOutputKernel_sum_mean<c10::"
         "BFloat16, long>(long const*, long const*, c10::BFloat16 const*, c10::BFloat16*)",
         kAddr, "embedding", "real DLRM EmbeddingBag"},
        {"void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long, "
         "unsigned int, 2, 2, -2, true>(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>)",
         kAddr, "embedding", "real nn.Embedding forward"},
        {"void fbgemm_gpu::f8f8bf16_rowwise_impl<cutlass::gemm::GemmShape<128, 128, 128> >(Params)",
         kLib, "gemm", "FBGEMM GenAI GEMM is a real GEMM"},
    });
}

TEST(DefaultRules, AddressableFamiliesInsideElementwiseKernels) {
    check({
        {"void at::native::batch_norm_transform_input_channels_last_kernel<c10::BFloat16, float, "
         "c10::BFloat16, 4>(c10::BFloat16 const*, c10::BFloat16 const*, float const*)",
         kAddr, "norm", "real"},
        {"void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::"
         "batch_norm_calc_invstd(at::Tensor const&, at::Tensor const&, double)::{lambda()#1}, "
         "std::array<char*, 2ul> >(int)",
         kAddr, "norm", "real: norm lambda inside an elementwise kernel"},
        {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, "
         "float>(int, float, c10::BFloat16 const*, c10::BFloat16 const*)",
         kAddr, "norm", "real"},
        {"void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel<float, float>(long, "
         "long, float const*, float const*, float const*, float const*, float*, float*)",
         kAddr, "norm", "real layer norm backward"},
        {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
         "namespace)::FusedOptimizerTensorListMetadata<4>, at::native::(anonymous namespace)::"
         "FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, float const*>(int)",
         kAddr, "optimizer", "real fused AdamW"},
        {"void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native"
         "::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{"
         "lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1}>(at::TensorIteratorBase&)",
         kAddr, "copy", "real: copy inside elementwise_kernel"},
        {"void at::native::(anonymous namespace)::CatArrayBatchedCopy_vectorized<at::native::("
         "anonymous namespace)::OpaqueType<2u>, unsigned int, 3, 128, 1, 16, 8>(char*)",
         kAddr, "concat", "real torch.cat: 'Copy' in the name"},
        {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<"
         "float, float, float, float>, unsigned int, float, 4, 4> >(at::native::ReduceOp<float>)",
         kAddr, "reduction", "real (RMSNorm's mean in eager Qwen)"},
        {"void at::native::(anonymous namespace)::max_pool_forward_nhwc<c10::BFloat16, int>("
         "c10::BFloat16 const*, int, int)",
         kAddr, "pooling", "real"},
        {"void at::native::(anonymous namespace)::adaptive_average_pool<float>(float const*, "
         "float*,"
         " int, int, int, int, long, long, long)",
         kAddr, "pooling", "real"},
        {"void at::native::index_elementwise_kernel<128, 4, at::native::gpu_index_kernel<at::native"
         "::index_kernel_impl<at::native::OpaqueType<2> >(at::TensorIteratorBase&)>(int)",
         kAddr, "indexing", "real: indexing before elementwise"},
        {"void at::native::(anonymous "
         "namespace)::distribution_elementwise_grid_stride_kernel<float,"
         " 4>(long, at::PhiloxCudaState)",
         kAddr, "random", "real"},
        {"void at::native::vectorized_elementwise_kernel<8, at::native::(anonymous namespace)::"
         "silu_kernel(at::TensorIteratorBase&)::{lambda()#1}, std::array<char*, 2ul> >(int)",
         kAddr, "elementwise", "real"},
        {"void at::native::vectorized_elementwise_kernel<8, at::native::CUDAFunctor_add<c10::"
         "BFloat16>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, "
         "std::array<char*, 3ul>)",
         kAddr, "elementwise", "real"},
        {"void at_cuda_detail::cub::detail::radix_sort::DeviceRadixSortOnesweepKernel<at_cuda_"
         "detail::cub::detail::radix::policy_hub<long, unsigned long long>::Policy1000>(int*)",
         kAddr, "sort_scan", "real CUB inside embedding backward"},
        {"void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, "
         "float, long>(float*, float*, float const*, long const*)",
         kAddr, "loss", "real: loss before reduction"},
        {"void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*, c10::BFloat16*)",
         kAddr, "rope", "rope before embedding: the name says rotary_embedding"},
        {"void apply_rope_kernel<half>(half*, float const*, int)", kAddr, "rope", "RoPE"},
        {"void at::native::(anonymous namespace)::krn_partials_per_segment<long>(long*, long "
         "const*, long const*, long)",
         kAddr, "aten_other", "real: unknown ATen kernel falls to the ATen family"},
        {"saxpy(double *, double *, double *, double, int)", kAddr, "elementwise",
         "real user kernel (Nsight sample)"},
        {"void scal_kernel<float, float, 1, false, 6, 5, 5, 3>(cublasTransposeParams<float>, float "
         "const*, float*, float const*)",
         kAddr, "elementwise", "real cuBLAS level-1: before the cublas rule"},
    });
}

TEST(DefaultRules, CommunicationAndDataMovementAreOverhead) {
    check({
        {"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
         kOver, "communication", "real NCCL <= 2.18"},
        {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", kOver,
         "communication", "NCCL >= 2.19"},
        {"void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*)", kOver,
         "communication", "custom all-reduce"},
        {"Memcpy HtoD (Pageable -> Device)", kOver, "memcpy", "real Kineto memcpy"},
        {"Memcpy DtoD (Device -> Device)", kOver, "memcpy", "real"},
        {"Memset (Device)", kOver, "memset", "real Kineto memset"},
        {"[CUDA memcpy Host-to-Device]", kOver, "memcpy", "Nsight Systems naming"},
        {"[CUDA memset]", kOver, "memset", "Nsight Systems naming"},
    });
    // "allreduce" would otherwise be a reduction, "all_gather" indexing.
    RuleSet def = RuleSet::builtinDefault();
    EXPECT_EQ(def.classify("void at::native::reduce_kernel<512, 1>", ActivityKind::Kernel).family,
              "reduction");
}

// Names that are not in the bundled traces, from other libraries and PyTorch versions: the
// family rules must place them without a rule per kernel.
TEST(DefaultRules, UnseenNamesLandInTheirFamilies) {
    check({
        {"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn", kLib, "gemm",
         "cuBLAS A100"},
        {"volta_sgemm_128x64_nn", kLib, "gemm", "cuBLAS V100"},
        {"void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, "
         "int, int>, cutlass::gemm::collective::CollectiveMma<> > >(Params)",
         kLib, "gemm", "CUTLASS 3"},
        {"void cutlass::device_kernel<flash::FlashAttnFwdSm90<flash::CollectiveMainloopFwdSm90<2, "
         "cute::tuple<cute::C<1> >, cutlass::bfloat16_t> > >(Params)",
         kLib, "attention", "FlashAttention 3 inside a cutlass device_kernel"},
        {"void cudnn::detail::implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, false>("
         "int, int, int, float const*)",
         kLib, "conv", "old cuDNN implicit GEMM conv"},
        {"void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>(cudnn::winograd_"
         "nonfused::WinogradDataParams<float, float>)",
         kLib, "conv", "cuDNN Winograd"},
        {"void at::native::(anonymous namespace)::conv_depthwise2d_forward_kernel<1, float, int>("
         "at::GenericPackedTensorAccessor<float const, 4ul>)",
         kLib, "conv", "ATen depthwise conv (aten::_conv_depthwise2d)"},
        {"void transformer_engine::normalization::ln_fwd_tuned_kernel<transformer_engine::"
         "normalization::Kernel_traits<float> >(transformer_engine::normalization::FwdParams)",
         kAddr, "norm", "TransformerEngine layer norm"},
        {"void vllm::rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, c10::BFloat16 const*)",
         kAddr, "norm", "vLLM RMSNorm"},
        {"void vllm::act_and_mul_kernel<c10::BFloat16, &vllm::silu_kernel<c10::BFloat16> >("
         "c10::BFloat16*, c10::BFloat16 const*, int)",
         kAddr, "elementwise", "vLLM SwiGLU"},
        {"void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, __nv_bfloat16>(long const*)",
         kAddr, "kv_cache", "vLLM KV-cache write (says flash, is no attention)"},
        {"void vllm::paged_attention_v2_kernel<unsigned short, unsigned short, 128, 16, 128>("
         "float*, float*)",
         kLib, "attention", "paged attention"},
        {"void vllm::moe::topkGatingSoftmax<4, 64, 4, 16>(float const*, bool const*, float*)",
         kAddr, "moe_routing", "MoE gating softmax"},
        {"void at::native::(anonymous namespace)::upsample_bilinear2d_out_frame<c10::Half, float>"
         "(int, float, float, bool, at::GenericPackedTensorAccessor<c10::Half const, 4ul>)",
         kAddr, "resample", "upsampling"},
        {"void at::native::(anonymous namespace)::sortKeyValueInplace<float, long>(at::cuda::"
         "detail::TensorInfo<float, unsigned int>)",
         kAddr, "sort_scan", "sort"},
        {"triton__0d1d2d3de4de", kAddr, "triton", "PyTorch 2.0 Inductor naming"},
        {"void at::native::amp_update_scale_cuda_kernel(float*, int*, float const*, double, "
         "double, int)",
         kAddr, "aten_other", "other ATen kernel"},
        {"Memcpy PtoP (Device -> Device)", kOver, "memcpy", "peer copy"},
    });
}

}  // namespace reach_test_defaultrules_test
