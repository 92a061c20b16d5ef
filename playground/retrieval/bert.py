"""A BERT encoder in plain torch, for BERT-based sentence embedders such as all-MiniLM-L6-v2.

Why: importing `transformers`' model code pulls torch.distributed, torch._dynamo and sympy (seconds on every
command); this forward pass needs torch, `tokenizers` and `safetensors` only. It computes what transformers'
BertModel computes (post-LayerNorm blocks, exact GELU, absolute positions), checked in tests against
sentence-transformers' vectors.
"""

from __future__ import annotations

import json
from pathlib import Path


def bert_folder_supported(folder: Path) -> bool:
    """A BERT checkpoint in safetensors with a fast-tokenizer file and the settings this encoder implements."""
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (
        config.get("model_type") == "bert"
        and config.get("hidden_act") == "gelu"
        and config.get("position_embedding_type", "absolute") == "absolute"
        and (folder / "model.safetensors").is_file()
        and (folder / "tokenizer.json").is_file()
    )


class BertEncoder:
    """encode(texts) -> last hidden states (batch, tokens, hidden) and the attention mask, as BertModel gives."""

    def __init__(self, folder: Path, max_length: int, device: str = "cpu", dtype: str = "float32"):
        import torch
        from safetensors.torch import load_file
        from tokenizers import Tokenizer

        self.torch = torch
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.hidden = int(config["hidden_size"])
        self.device = device
        weights = load_file(str(folder / "model.safetensors"))
        prefix = "bert." if "bert.embeddings.word_embeddings.weight" in weights else ""
        self.w = {
            name[len(prefix) :]: tensor.to(device=device, dtype=getattr(torch, dtype))
            for name, tensor in weights.items()
            if name.startswith(prefix) and tensor.is_floating_point()
        }
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=min(max_length, int(config["max_position_embeddings"])))
        pad_id = int(config.get("pad_token_id") or 0)
        self.tokenizer.enable_padding(pad_id=pad_id, pad_token=self.tokenizer.id_to_token(pad_id) or "[PAD]")

    def tokenize(self, texts: list[str]):
        torch = self.torch
        encodings = self.tokenizer.encode_batch(texts)
        ids = torch.tensor([e.ids for e in encodings], dtype=torch.long, device=self.device)
        types = torch.tensor([e.type_ids for e in encodings], dtype=torch.long, device=self.device)
        mask = torch.tensor([e.attention_mask for e in encodings], dtype=torch.long, device=self.device)
        return ids, types, mask

    def _norm(self, x, name: str):
        return self.torch.nn.functional.layer_norm(
            x, (self.hidden,), self.w[f"{name}.weight"], self.w[f"{name}.bias"], self.eps
        )

    def _linear(self, x, name: str):
        return self.torch.nn.functional.linear(x, self.w[f"{name}.weight"], self.w[f"{name}.bias"])

    def forward(self, ids, types, mask):
        torch = self.torch
        functional = torch.nn.functional
        batch, length = ids.shape
        positions = torch.arange(length, device=self.device)
        x = (
            self.w["embeddings.word_embeddings.weight"][ids]
            + self.w["embeddings.position_embeddings.weight"][positions]
            + self.w["embeddings.token_type_embeddings.weight"][types]
        )
        x = self._norm(x, "embeddings.LayerNorm")
        keep = mask.bool()[:, None, None, :]  # (batch, 1, 1, keys): padding is never attended to
        head_size = self.hidden // self.heads
        for layer in range(self.layers):
            at = f"encoder.layer.{layer}"

            def heads(name: str, x=x, at=at):
                return (
                    self._linear(x, f"{at}.attention.self.{name}")
                    .view(batch, length, self.heads, head_size)
                    .transpose(1, 2)
                )

            context = functional.scaled_dot_product_attention(
                heads("query"), heads("key"), heads("value"), attn_mask=keep
            )
            context = context.transpose(1, 2).reshape(batch, length, self.hidden)
            x = self._norm(
                self._linear(context, f"{at}.attention.output.dense") + x, f"{at}.attention.output.LayerNorm"
            )
            inner = functional.gelu(self._linear(x, f"{at}.intermediate.dense"))
            x = self._norm(self._linear(inner, f"{at}.output.dense") + x, f"{at}.output.LayerNorm")
        return x

    def __call__(self, texts: list[str]):
        ids, types, mask = self.tokenize(texts)
        with self.torch.inference_mode():
            return self.forward(ids, types, mask), mask
