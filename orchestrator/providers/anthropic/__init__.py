"""The Claude provider, a small package. Importing it does not import `anthropic`
(~2 s): the client is made on the first call, so commands that call no model never pay.

- provider.py      AnthropicProvider: the generate loop (retries, continuations, logging)
- params.py        build_params(req, model_settings): THE request builder (streams and batches)
- stream.py        one streamed attempt
- continuation.py  exact joins of an answer cut at max_tokens
- retry.py         failure classification, backoff and the overload budget
- gate.py          the cache gate (siblings of a new prefix wait for the first to start)
- client.py        the shared AsyncAnthropic and its timeouts
- pricing.py, models.py, settings.py: data/prices.yaml, data/models.yaml, `models:` in book.yaml
"""

from .continuation import CONTINUE_PROMPT, join_continuation
from .models import ModelInfo, cap_max_tokens, load_models, model_info, model_warnings
from .params import FEEDBACK_HEADER, build_params
from .pricing import PRICES_PATH, cost_usd, load_prices, price_for
from .provider import AnthropicProvider, text_hash
from .settings import effective_settings, resolve_settings, validate_models

__all__ = ["AnthropicProvider", "CONTINUE_PROMPT", "FEEDBACK_HEADER", "ModelInfo", "PRICES_PATH", "build_params",
           "cap_max_tokens", "cost_usd", "effective_settings", "join_continuation", "load_models", "load_prices",
           "model_info", "model_warnings", "price_for", "resolve_settings", "text_hash", "validate_models"]
