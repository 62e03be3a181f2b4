#pragma once
// Activation bytes one transformer layer keeps for its backward pass, for one micro-batch, on one
// GPU. Generalizes Korthikanti et al., "Reducing Activation Recomputation in Large Transformer
// Models" (MLSys 2023, arXiv:2205.05198), section 4, to GQA, MLA, SwiGLU and MoE; for a GPT layer
// (MHA, GeLU, 4h MLP, dropout, unfused softmax) it gives their Table 2 exactly, 16-bit tensors,
// s tokens per sequence, b sequences, h hidden, a heads, t tensor-parallel ranks:
//   no parallelism                     sbh·(34 + 5as/h)                (eq. 1)
//   tensor parallel                    sbh·(10 + 24/t + 5as/(ht))      (eq. 2)
//   tensor + sequence parallel         sbh/t·(34 + 5as/h)              (eq. 3)
//   selective recompute (TP, TP+SP)    sbh·(10 + 24/t), sbh·34/t       (Table 2)
//   full recompute                     2sbh (the layer input; /t with sequence parallelism)
// The 34 is: attention 11sbh (QKV input 2, Q and K 4, V 2, projection input 2, dropout mask 1),
// MLP 19sbh (input 2, GeLU input 8, second GEMM input 8, dropout mask 1), two norm inputs 4sbh;
// 5as²b is softmax output 2, its dropout mask 1 and dropout output 2. Of these, the norm and
// block inputs and the dropout masks (10sbh) are replicated over TP ranks unless sequence
// parallelism shards them.
//
// Generalized: Q, K, V widths are heads·qk_head_dim, kv_heads·qk_head_dim, kv_heads·v_head_dim
// (MLA: heads for all, plus its q/kv latents); a SwiGLU MLP keeps 2·ffn of activation input;
// dropout masks only when the model uses dropout; with a fused (flash) attention kernel the
// s² tensors are replaced by its fp32 log-sum-exp row statistics (4·a·s·b bytes).
// fp8 GEMMs: Transformer Engine saves the fp8 copies of GEMM inputs it made in the forward (QKV,
// projection, MLP and second-MLP-GEMM inputs, routed experts' inputs) for the wgrad GEMMs, 1 byte
// each; the rest stays 16-bit. For the GPT layer that is 34 − 7 = 27 sbh.
// MoE layers assume balanced routing: each rank's experts see top_k times its tokens; the
// routed part is sharded by expert_tp, the shared experts by tp. Context parallelism divides s.

#include "ctwin/workload/model_spec.hpp"
#include "ctwin/workload/parallel_config.hpp"

namespace ctwin::workload {

enum class LayerKind { kDense, kMoe };

/// Bytes per layer per micro-batch; `flash_attention` false keeps the s² tensors (Korthikanti).
[[nodiscard]] double layer_activation_bytes(const ModelSpec& model, const ParallelConfig& split, LayerKind kind,
                                            bool flash_attention);

}  // namespace ctwin::workload
