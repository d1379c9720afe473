"""What chapter 1 quotes first, read from real READMEs of set 19: the project's purpose (purpose.purpose: a bold
tagline, not the lead-in to a list of users; no bar of translation links; not a notice before the paragraph that
says what the project is) and its first example (not one feature's "… Examples" section over the README's first use)."""

from __future__ import annotations

from orchestrator.authoring.project import load


def test_what_the_project_is_for_is_not_a_list_lead_in_a_menu_or_a_notice(tmp_path):
    from orchestrator.authoring.purpose import purpose

    def said(readme: str) -> str | None:
        root = tmp_path / str(len(list(tmp_path.iterdir())))
        root.mkdir()
        (root / "README.md").write_text(readme)
        (root / "x.py").write_text("def f():\n    return 1\n")
        got = purpose(load(root))
        return got[2] if got else None

    # viper: a bold tagline, then a list's lead-in
    assert said("# viper\n\n**Go configuration with fangs!**\n\nMany Go projects are built using Viper including:\n\n"
                "* Hugo\n* Docker\n") == "**Go configuration with fangs!**"
    # dayjs: a bar of links to translations is no sentence
    assert said("English | [中文](zh.md) | [日本語](ja.md)\n\n## Install\n") is None
    # money: an upgrade warning first; java-jwt's kind: the paragraph that says what it is
    assert said("# m\n\n⚠️ Please read the upgrade guides before upgrading to a new major version.\n\n"
                "Money is a Ruby library for dealing with money and currency conversion.\n") == \
        "Money is a Ruby library for dealing with money and currency conversion."
    # Erubi: a long first sentence that ends in a colon is still the project's own description
    assert said("= Erubi\n\nErubi is an ERB template engine for Ruby. It is a simplified fork of Erubis, using\n"
                "the same basic algorithm, with the following differences:\n\n* Handles postfix conditionals\n"
                ).startswith("Erubi is an ERB template engine")


def test_an_example_heading_of_one_feature_does_not_outrank_the_readmes_first_use(tmp_path):
    from orchestrator.authoring.overview import _general, entry_points, example_of

    assert not _general("Remote Key/Value Store Examples (Unencrypted)")
    assert _general("Show me an example") and _general("Usage") and _general("A simple example")
    root = tmp_path / "viper"
    root.mkdir()
    (root / "go.mod").write_text("module example.com/viper\n")
    (root / "viper.go").write_text("package viper\n\nfunc ReadInConfig() error {\n\treturn nil\n}\n\n"
                                   "func ReadRemoteConfig() error {\n\treturn nil\n}\n\nfunc SetConfigName(n string) {\n}\n")
    (root / "README.md").write_text(
        "# viper\n\n## Putting values in\n\n### Reading Config Files\n\n```go\nviper.SetConfigName(\"config\")\n"
        "err := viper.ReadInConfig()\n```\n\n### Remote Key/Value Store Examples\n\n```go\nerr := viper.ReadRemoteConfig()\n```\n")
    p = load(root)
    assert example_of(p, entry_points(p)).first == 8
