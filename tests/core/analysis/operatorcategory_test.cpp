#include <gtest/gtest.h>

#include "core/analysis/operatorcategory.h"

namespace reach_test_operatorcategory_test {  // unity builds: this file's names stay its own

using namespace reach;

TEST(OperatorCategory, MatmulConvAndAttentionAreLibraryOptimized) {
    for (const char* op : {"aten::mm",
                           "aten::addmm",
                           "aten::bmm",
                           "aten::baddbmm",
                           "aten::linear",
                           "aten::matmul",
                           "aten::addmv",
                           "aten::_scaled_mm",
                           "aten::_addmm_activation",
                           "aten::cudnn_convolution",
                           "aten::convolution",
                           "aten::_convolution",
                           "aten::conv2d",
                           "aten::convolution_backward",
                           "aten::_conv_depthwise2d",
                           "aten::cudnn_convolution_transpose",
                           "aten::_slow_conv2d_forward",
                           "aten::_cudnn_attention_forward",
                           "aten::_cudnn_attention_backward",
                           "aten::scaled_dot_product_attention",
                           "aten::_scaled_dot_product_flash_attention",
                           "aten::_flash_attention_forward",
                           "aten::_efficient_attention_backward",
                           "flash_attn::_flash_attn_forward",
                           "fbgemm::f8f8bf16_rowwise",
                           "triton_tem_fused_mm_0"}) {
        EXPECT_EQ(operatorCategory(op), Category::LibraryOptimized) << op;
    }
}

TEST(OperatorCategory, EverythingElseIsAddressable) {
    for (const char* op :
         {"aten::_embedding_bag", "aten::embedding", "aten::native_layer_norm",
          "aten::native_batch_norm", "aten::_log_softmax", "aten::add_", "aten::mul", "aten::copy_",
          "aten::cat", "aten::index", "aten::clamp_min", "aten::_foreach_mul_",
          "aten::max_pool2d_with_indices", "aten::_convert_indices_from_coo_to_csr",
          "aten::embedding_dense_backward",
          "fbgemm::split_embedding_codegen_lookup_rowwise_adagrad_function",
          "triton_poi_fused_gelu_native_dropout_view_15", "triton_per_fused__softmax_0",
          "aten::dot"}) {
        EXPECT_EQ(operatorCategory(op), Category::Addressable) << op;
    }
    EXPECT_FALSE(operatorCategory("").has_value());
}

TEST(OperatorCategory, CollectivesAndDataMovementAreOverhead) {
    EXPECT_EQ(operatorCategory("c10d::allreduce_"), Category::Overhead);
    EXPECT_EQ(operatorCategory("nccl:all_reduce"), Category::Overhead);
    EXPECT_EQ(operatorCategory("record_param_comms"), Category::Overhead);
    // A memcpy under aten::copy_ and a memset that aten::mm issues are data movement.
    EXPECT_EQ(operatorCategory("aten::copy_", ActivityKind::Memcpy), Category::Overhead);
    EXPECT_EQ(operatorCategory("aten::to", ActivityKind::Memcpy), Category::Overhead);
    EXPECT_EQ(operatorCategory("aten::mm", ActivityKind::Memset), Category::Overhead);
    EXPECT_EQ(operatorCategory("aten::copy_", ActivityKind::Kernel), Category::Addressable);
    EXPECT_EQ(operatorCategory("aten::mm", ActivityKind::Kernel), Category::LibraryOptimized);
}

TEST(OperatorCategory, CommunicationKernelsInBothNcclEras) {
    EXPECT_TRUE(isCommunicationKernel("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*)"));
    EXPECT_TRUE(isCommunicationKernel("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage)"));
    EXPECT_TRUE(isCommunicationKernel("void vllm::cross_device_reduce_2stage<half, 8>()"));
    EXPECT_FALSE(isCommunicationKernel("void at::native::reduce_kernel<512, 1>()"));
    EXPECT_FALSE(isCommunicationKernel("nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT"));
}

}  // namespace reach_test_operatorcategory_test
