"""The book's default words, per language: what `book init` writes and what the planner
recognises as "not chosen by a person" (so it may name the book after the project)."""

DEFAULT_TITLE = "A Book About a Codebase"
LOCALIZED_DEFAULTS: dict[str, dict[str, str]] = {
    "zh": {"title": "一本关于代码库的书", "audience": "将要参与这份代码开发的工程师",
           "brief": "结合真实代码，逐个模块讲解这份代码是如何工作的。"},
}
DEFAULT_TITLES = {"en": "Inside {name}", "zh": "{name} 源码解读"}  # when the source names its project

# The model for every role unless book.yaml names another: here, below config, so that the
# providers that fall back on it need not import config (which imports them to check models).
DEFAULT_MODEL = "claude-sonnet-5-5"
