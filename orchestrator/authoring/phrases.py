"""Every sentence the offline authors write, in English and in Chinese.

In a Chinese book each of these is Chinese; names from the code appear only as inline code,
and English from the source (doc comments) is never put inside these sentences: the writer
quotes it as a block quote instead."""

from __future__ import annotations

import re

from .variety import seed

EN: dict[str, str] = {
    "lang": "en", "and": " and ", "comma": ", ", "none": "none",
    "takes_from": "It uses these names explained in other chapters:",
    # plan
    # a title has no ": " so the outline's YAML needs no quotes for a person to edit
    "title_topic": "{topic} — {names}", "title_names": "How {names} work", "title_name": "How {names} works", "title_part": "The {name} part",
    "title_where": "{title} in {where}", "book_title": "Inside {name}", "title_module": "{name}", "title_in": "{what} in {where}", "title_api": "What a user imports",
    "ch_summary": "How {names} work, and what relies on them.",
    "these_files": "these files", "and_more": " and {n} more",
    "outline_intro": "This book explains `{src}` to {audience}. {brief} The {n} chapters are groups of code that "
                     "belong together; a chapter comes after the chapters whose code it uses, and chapters that do "
                     "not depend on each other share one of the {b} batches.",
    "outline_parts": "The chapters are grouped in {k} parts, in the order a newcomer explores (the big picture "
                     "first, foundations last); a part's `title` is what the contents show: edit it below to rename "
                     "the part.",
    # research
    "research_report": "Research", "sources": "Sources", "overview": "Overview", "key_symbols": "Key symbols",
    "excerpts": "Excerpts", "usage": "Usage in tests and examples", "relations": "Relations",
    "questions": "Questions readers will ask", "use_case": "Central use case",
    "src_line": "- `{file}` ({n} lines of {lang}).",
    "sym_line": "- `{name}` ({kind}, `{file}`:{a}-{b}, rank {score})",
    "sig_params": "parameters: {params}; result: {ret}",
    "no_usage": "No test or example calls the key symbols directly.",
    "rel_uses": "uses {names} from [{title}]({ch}.md)",
    "q_what": "What is `{name}` for, and where does a caller meet it first?",
    "q_fail": "What happens when `{name}` gets input it cannot handle?",
    "q_together": "How do `{a}` and `{b}` work together?",
    "q_untested": "No test calls `{name}` directly: how can a reader see it work?",
    "q_nodoc": "`{name}` has no doc comment: what does its code say it does?",
    "use_case_text": "A reader meets this part of the code through `{name}` (in `{file}`).",
    "use_case_seen": "`{file}` shows it in use at line {line}.",
    # the chapter
    "for_whom": "This book is for {audience}, and it starts here, with {names}.",
    "problem_more": "[{title}]({ch}.md) began this subject; this chapter adds the part in {files}.",
    "problem_more2": "The subject [{title}]({ch}.md) opened goes on in {files}.",
    "problem_more3": "One more piece of what [{title}]({ch}.md) began is in {files}.",
    "open_methods": "Its code is methods of `{owner}`{where}: {names}.",
    "open_funcs_helper": "Callers reach it through {names}; the private `{helper}` does the work behind them.",
    "open_methods_from": ", the type declared in `{file}`",
    "open_type": "At its centre is the {kind} `{name}`{methods}: what it holds, how one is made, and what it does.",
    "open_type_methods": ", with its methods {names}",
    "open_contract": "At its centre is the {kind} `{name}`{methods}: what a type must provide to be one, and what it gains.",
    "open_enum": "At its centre is the {kind} `{name}`{methods}: the cases it can be, and what each one means.",
    "open_beside": "Beside it stand {names}.",
    "open_funcs": "It reads {names} in turn: their code, what each does step by step, and who calls them.",
    "open_macros": "It is about the macros {names}: what a call expands to, and when to reach for each.",
    "open_types": "It is about the types {names}: what each one describes, and which code relies on it.",
    "pkg_doc": "The doc comment at the top of `{file}` says:",
    "own_is": "`{name}` is {what}",
    "open_used_none": "No code outside {file} imports or calls `{name}` as far as the map resolves: it is machinery "
                      "this part keeps to itself.",
    "open_used_one": "Only one file outside this chapter reaches for `{name}`: {files}.",
    "open_used_few": "Code in {files} relies on `{name}`, which this chapter explains.",
    "open_used_many": "`{name}` is one of the most used types in the project: {n} other files write it, {files} among them.",
    "open_used_one_f": "`{name}` has callers in one file outside this chapter, {files}.",
    "open_used_many_f": "`{name}` is called all over the project: {n} other files write it, {files} among them.",
    "own_quote": "",
    "pkg_doc_go": "The package's own doc comment, in `{file}`, says:",
    "pkg_doc_as": "`{file}` describes itself as",
    "image": "The project's own docs picture it as **{phrase}**: “{sentence}” (`{file}`, line {line}).",
    "fits": "Where this fits", "file_line": "- `{file}`: {n} lines of {lang}.",
    "builds_on": "It builds on {links}: read those first if a name below is new to you.",
    "used_by": "Later, {links} build on what this chapter explains.",
    "terms": "Key terms",
    "term_doc": "**{name}**: {summary} (the {kind} in `{file}`)",
    "defined": "`{name}` is a {kind} in `{file}` (lines {a}–{b}).",
    "defined_line": "`{name}` is a {kind} in `{file}` (line {a}).",
    "doc_says": " Its doc comment says:", "doc_says_one": " Its doc comment is one paragraph:",
    "no_doc": "It has no doc comment, so its code is the explanation.",
    "deprecated": "**Deprecated.**",  # not `**X**:`, which the memory keeper reads as a glossary term
    "read_code": "Its {n} lines are short enough to read at once.",
    "steps_intro": "What `{name}` does, step by step:", "steps_intro_short": "Step by step, `{name}` does {n} main things:",
    "step_check": "It checks `{code}`.", "step_loop": "It loops over `{code}`.",
    "step_choose": "It chooses a branch by `{code}`.", "step_raise": "It fails with `{code}`.",
    "step_return": "It returns `{code}`.", "step_defer": "It defers `{code}` until the function ends.",
    "step_with": "It opens `{code}` for the block that follows.", "step_try": "It tries the following block and handles failures.",
    "step_try_do": "It tries {codes}.", "step_try_do_again": "It then tries {codes}.",
    "step_try_catch_again": "It then tries {codes}; if that fails, it runs `{handler}`.", "step_try_catch": "It tries {codes}; if that fails, it runs `{handler}`.",
    "step_yield": "It yields `{code}` to the caller.", "step_set": "It sets `{code}`.",
    "step_call": "It calls `{code}`.",
    "params": "Parameters", "returns": "Returns", "raises": "Raises",
    "params_from_doc": "Its parameters and results, as its doc comment describes them:",
    "params_same": "Its other parameters are documented word for word as for `{name}` above.",
    "params_from_sig": "The signature of `{name}` takes:", "params_from_sig_one": "`{name}` takes one parameter:",
    "param_type": " of type `{type}`", "param_default": ", by default `{default}`",
    "result_type": "It gives back `{ret}`.",
    "notes_intro": "The doc comment adds:",
    "calls_local": "It relies on {names}, explained in this chapter.",
    "calls_local1": "It relies on {names}, explained in this chapter.",
    "calls_inner": "It calls {names}, from the same part of the code.",
    "calls_other": "It calls {names}, covered in [{title}]({ch}.md).",
    "doc_example": "The doc comment shows it in use (an illustration, not part of the source files):",
    "in_use": "In use",
    "usage_intro": "The tests and examples show `{name}` at work, in `{file}` from line {a}:",
    "usage_after": "This is how a caller uses `{name}`: the call above is taken from the project's own code.",
    "usage_in_test": "The call comes from `{test}`, which shows what a caller of `{name}` writes and expects.",
    "usage_in_test_more": "This one is from `{test}`.", "usage_same_test": "The same test, `{test}`, uses `{name}` too.",
    "usage_intro_more": "`{name}` at work, in `{file}` from line {a}:",
    "others": "Other names in this part",
    "other_line": "- `{name}` ({kind}, `{file}`, line {a})",
    "summary": "Summary",
    "sum_line": "- `{name}`, the {kind} in `{file}`: {used}.",
    "used_n": "used from {n} other source files and {k} tests or examples",
    # the singular forms ("1 other source files" read as a slip)
    "used_files1": "1 other source file", "used_tests1": "1 test or example",
    "used_none": "used within its own files",
    "next": "Next, {link} builds on these pieces.",
    # problems each role solves (the opening sentence)
    "problem_app": "A web application needs one object that holds its configuration, its routes and its extensions, and that the server calls for every request.",
    "problem_routing": "Every request that reaches a server has to be handed to the code that should answer it.",
    "problem_tree": "Finding the right entry among many, fast, needs a structure built for lookups.",
    "problem_middleware": "Some work applies to every request or call (logging, limits, recovery), and it should not be repeated in each handler.",
    "problem_context": "Code deep inside a call needs to know what the request is and what was decided before it.",
    "problem_errors": "When something fails, the caller needs to know what, where and why, without losing the original cause.",
    "problem_storage": "Data has to outlive the process and be found again.",
    "problem_cache": "Work that was done once should not be done again when its answer is still good.",
    "problem_query": "Callers need to say which records they want without writing the search themselves.",
    "problem_commands": "A command-line program must turn words typed by a person into the right action with the right options.",
    "problem_serialization": "Values in memory have to become text or bytes and come back unchanged.",
    "problem_http": "A request has to be built, sent and answered, and its response read.",
    "problem_retry": "Networks fail for a moment; a client should wait, try again, and know when to stop.",
    "problem_config": "The same code has to behave differently in each place it runs.",
    "problem_templates": "Output is mostly the same text with a few values that change.",
    "problem_sessions": "A server forgets each visitor between requests unless something remembers for it.",
    "problem_store": "Several parts of a program need the same state and need to know when it changes.",
    "problem_macros": "Some code is written so often that a short form saves every caller the repetition.",
    "problem_engine": "Talking to a database means opening connections, reusing them and running statements safely.",
    "problem_events": "Parts of a program need to react to what happens elsewhere without being called directly.",
    "problem_logging": "When a program misbehaves in production, its own record of what it did is often the only witness.",
    "problem_completion": "A person typing a command should not have to remember every subcommand and flag: the shell can suggest them.",
    "problem_dialects": "Every database speaks its own variant of SQL; one library has to speak to each of them.",
    "problem_orm": "Programs think in objects and databases in rows; something has to keep the two in step.",
    "problem_utils": "Small jobs recur everywhere in a code base and are best written once.",
    "problem_types": "Parts of the code agree on shapes and contracts before any of them runs.",
}

ZH: dict[str, str] = {
    "lang": "zh", "and": " 与 ", "comma": "、", "none": "无",
    "takes_from": "它使用了其他章节讲解的以下名字：",
    "title_topic": "{topic}：{names}", "title_names": "{names} 的工作方式", "title_name": "{names} 的工作方式", "title_part": "{name} 部分",
    "title_where": "{title}（{where}）", "book_title": "{name} 源码解读", "title_module": "{name} 模块", "title_in": "{where}/{what} 模块", "title_api": "公开接口",
    "ch_summary": "讲解 {names} 的工作方式，以及哪些代码依赖它们。",
    "these_files": "这些文件", "and_more": " 等共 {n} 个文件",
    "outline_intro": "本书为{audience}讲解 `{src}`。{brief}全书 {n} 章，每章是一组紧密相关的代码；"
                     "一章总是排在它所用到的章节之后，互不依赖的章节放在同一批次中，共 {b} 个批次。",
    "outline_parts": "各章按新人探索代码的顺序分为 {k} 个部分（先讲全局，基础放在最后）；部分的 `title` "
                     "就是目录中显示的名称，在下面修改即可重命名该部分。",
    "research_report": "研究报告", "sources": "源文件", "overview": "概述", "key_symbols": "关键符号",
    "excerpts": "代码摘录", "usage": "测试与示例中的用法", "relations": "关联",
    "questions": "读者会问的问题", "use_case": "核心用例",
    "src_line": "- `{file}`（{n} 行 {lang} 代码）。",
    "sym_line": "- `{name}`（{kind}，`{file}` 第 {a}–{b} 行，排名分数 {score}）",
    "sig_params": "参数：{params}；返回：{ret}",
    "no_usage": "没有测试或示例直接调用这些关键符号。",
    "rel_uses": "来自[{title}]({ch}.md)的 {names}",
    "q_what": "`{name}` 是做什么的？调用者最先在哪里遇到它？",
    "q_fail": "`{name}` 遇到无法处理的输入时会怎样？",
    "q_together": "`{a}` 和 `{b}` 是如何配合工作的？",
    "q_untested": "没有测试直接调用 `{name}`：读者怎样才能看到它的实际运行？",
    "q_nodoc": "`{name}` 没有文档注释：从代码看，它做了什么？",
    "use_case_text": "读者通过 `{name}`（位于 `{file}`）接触到这部分代码。",
    "use_case_seen": "`{file}` 第 {line} 行展示了它的实际用法。",
    "for_whom": "代码从 {names} 读起。",  # the overview above already named the reader
    "problem_more": "[{title}]({ch}.md)已经开启了这个话题；本章讲解 {files} 中的那一部分。",
    "problem_more2": "[{title}]({ch}.md)开启的话题在 {files} 中继续。",
    "problem_more3": "[{title}]({ch}.md)所开始的内容，还有一部分在 {files} 中。",
    "open_methods": "本章的代码都是 `{owner}`{where}的方法：{names}。",
    "open_funcs_helper": "调用者通过 {names} 使用这部分代码，背后真正干活的是私有的 `{helper}`。",
    "open_methods_from": "（这个类型声明在 `{file}` 中）",
    "open_type": "本章的中心是{kind} `{name}`{methods}：它保存什么、如何创建、能做什么。",
    "open_type_methods": "及其方法 {names}",
    "open_contract": "本章的中心是{kind} `{name}`{methods}：一个类型要满足它必须提供什么，又能由此得到什么。",
    "open_enum": "本章的中心是{kind} `{name}`{methods}：它可能取哪些情形，每种情形又代表什么。",
    "open_beside": "与它并列的还有 {names}。",
    "open_funcs": "本章依次阅读 {names}：它们的代码、每一步做了什么，以及谁在调用它们。",
    "open_macros": "本章讲解宏 {names}：一次调用会展开成什么，以及何时使用它们。",
    "open_types": "本章讲解类型 {names}：每个类型描述了什么，又有哪些代码依赖它。",
    "pkg_doc": "`{file}` 开头的文档注释写道：",
    "own_is": "",
    "open_used_none": "在 {file} 之外没有代码直接用到 `{name}`：它是这一部分自己的内部机制。",
    "open_used_one": "本章之外只有一个文件用到 `{name}`：{files}。",
    "open_used_few": "{files} 中的代码都依赖本章讲解的 `{name}`。",
    "open_used_many": "`{name}` 是整个项目里用得最多的类型之一：另有 {n} 个文件写到它，其中包括 {files}。",
    "open_used_one_f": "本章之外只有 {files} 调用了 `{name}`。",
    "open_used_many_f": "整个项目到处都在调用 `{name}`：另有 {n} 个文件写到它，其中包括 {files}。",
    "own_quote": "源码注释这样介绍 `{name}`：「{summary}」",
    "pkg_doc_go": "包的文档注释位于 `{file}`，原文如下：",
    "pkg_doc_as": "`{file}` 开头的文档注释写道：",
    "image": "项目自己的文档把它比作**{phrase}**：“{sentence}”（`{file}`，第 {line} 行）。",
    "fits": "本章的位置", "file_line": "- `{file}`：{n} 行 {lang} 代码。",
    "builds_on": "本章建立在{links}之上：如果下文中的某个名字让你感到陌生，请先阅读那些章节。",
    "used_by": "之后，{links}会在本章内容的基础上继续展开。",
    "terms": "关键术语",
    "defined": "`{name}` 是 `{file}` 中的一个{kind}（第 {a}–{b} 行）。",
    "defined_line": "`{name}` 是 `{file}` 中的一个{kind}（第 {a} 行）。",
    "term_zh": "**{name}**：`{file}` 中的{kind}{facts}",
    "term_methods": "提供 {n} 个方法，主要有 {names}",
    "term_users": "另有 {n} 个文件用到它", "term_said": "源码注释：「{summary}」",
    "doc_says": "源码中的文档注释写道：", "doc_says_one": "它的文档注释只有一段：",
    "no_doc": "它没有文档注释，因此代码本身就是最好的说明。",
    "deprecated": "**已弃用**，源码中的说明如下：",
    "read_code": "它只有 {n} 行，可以一眼读完。",
    "steps_intro": "`{name}` 的执行过程，逐步来看：", "steps_intro_short": "逐步来看，`{name}` 主要做了 {n} 件事：",
    "step_check": "先检查条件 `{code}`。", "step_loop": "对 `{code}` 进行循环处理。",
    "step_choose": "根据 `{code}` 选择分支。", "step_raise": "以 `{code}` 报告失败。",
    "step_return": "返回 `{code}`。", "step_defer": "推迟执行 `{code}`，直到函数结束时才运行。",
    "step_with": "为接下来的代码块打开 `{code}`。", "step_try": "尝试执行接下来的代码块，并处理其中的失败。",
    "step_try_do": "尝试执行 {codes}。", "step_try_do_again": "再尝试 {codes}。",
    "step_try_catch_again": "再尝试 {codes}；失败时执行 `{handler}`。", "step_try_catch": "尝试执行 {codes}；若失败，则执行 `{handler}`。",
    "step_yield": "把 `{code}` 交给调用者。", "step_set": "赋值：`{code}`。",
    "step_call": "调用 `{code}`。",
    "params": "参数", "returns": "返回值", "raises": "异常",
    "params_from_doc": "它的参数与返回值，文档注释中的原文如下：",
    "params_same": "其余参数的文档说明与上文 `{name}` 的完全相同。",
    "params_from_sig": "`{name}` 的签名接受以下参数：", "params_from_sig_one": "`{name}` 只接受一个参数：",
    "param_type": "，类型为 `{type}`", "param_default": "，默认值为 `{default}`",
    "result_type": "它的返回类型是 `{ret}`。",
    "notes_intro": "文档注释还补充了以下说明：",
    "calls_local": "它依赖的 {names} 在本章中都有讲解。", "calls_local1": "它依赖的 {names} 在本章中有讲解。",
    "calls_inner": "它调用了同一部分代码中的 {names}。",
    "calls_other": "它调用了 {names}，详见[{title}]({ch}.md)。",
    "doc_example": "文档注释中给出了一个用法示例（仅作示意，并非源文件中的代码）：",
    "in_use": "实际用法",
    "usage_intro": "测试和示例展示了 `{name}` 的实际用法，见 `{file}` 第 {a} 行起：",
    "usage_after": "调用者就是这样使用 `{name}` 的：上面的调用直接摘自项目自己的代码。",
    "usage_in_test": "这段调用出自 `{test}`，它展示了 `{name}` 的调用者会写什么、期待什么。",
    "usage_in_test_more": "这一段出自测试 `{test}`。", "usage_same_test": "同一个测试 `{test}` 也用到了 `{name}`。",
    "usage_intro_more": "再看 `{name}`，见 `{file}` 第 {a} 行起：",
    "others": "本部分的其他名字",
    "other_line": "- `{name}`（{kind}，`{file}` 第 {a} 行）",
    "summary": "小结",
    "sum_line": "- `{name}`：`{file}` 中的{kind}，{used}。",
    "used_n": "被其他 {n} 个源文件以及 {k} 个测试或示例使用",
    "used_none": "只在它自己的文件中使用",
    "next": "接下来，{link}会在这些部件的基础上继续讲解。",
    "problem_app": "一个 Web 应用需要一个对象来保存它的配置、路由和扩展，服务器收到每个请求时都会调用它。",
    "problem_routing": "每个到达服务器的请求，都必须交给应该回答它的那段代码。",
    "problem_tree": "要在众多条目中快速找到正确的那一个，需要一种专为查找而建的结构。",
    "problem_middleware": "有些工作适用于每一个请求或调用（日志、限流、异常恢复），不应在每个处理函数里重复编写。",
    "problem_context": "调用链深处的代码需要知道当前请求是什么，以及之前已经做出了哪些决定。",
    "problem_errors": "出错时，调用者需要知道出了什么错、在哪里、为什么，而且不能丢失最初的原因。",
    "problem_storage": "数据需要在进程结束后继续保存，并且能被再次找到。",
    "problem_cache": "已经做过一次的工作，在结果仍然有效时不应该再做一遍。",
    "problem_query": "调用者需要说明想要哪些记录，而不必自己编写查找过程。",
    "problem_commands": "命令行程序必须把用户输入的文字变成正确的动作和正确的选项。",
    "problem_serialization": "内存中的值需要变成文本或字节，之后还要原样恢复回来。",
    "problem_http": "一个请求需要被构造、发送并得到回答，然后读取它的响应。",
    "problem_retry": "网络会短暂地失败；客户端应该稍等、重试，并且知道何时停止。",
    "problem_config": "同一份代码在不同的运行环境中需要有不同的行为。",
    "problem_templates": "输出的大部分文字是相同的，只有少数几个值会变化。",
    "problem_sessions": "服务器在两次请求之间会忘记每一位访客，除非有东西替它记住。",
    "problem_store": "程序的多个部分需要共享同一份状态，并且要在状态变化时得到通知。",
    "problem_macros": "有些代码写得太频繁了，一个简短的写法可以让每个调用者免去重复。",
    "problem_engine": "与数据库打交道意味着打开连接、复用连接，并安全地执行语句。",
    "problem_events": "程序的各个部分需要对其他地方发生的事情做出反应，而不必被直接调用。",
    "problem_logging": "程序在生产环境中出问题时，它自己留下的运行记录往往是唯一的证人。",
    "problem_completion": "输入命令的人不必记住每一个子命令和参数：命令行可以替他给出提示。",
    "problem_dialects": "每种数据库都说着自己的 SQL 方言，一个库必须能和它们每一个对话。",
    "problem_orm": "程序以对象来思考，数据库以数据行来存储，需要有东西让两者保持同步。",
    "problem_utils": "一些小任务在代码库中反复出现，最好只写一次。",
    "problem_types": "代码的各个部分在运行之前，先要就数据的形状和约定达成一致。",
}

KINDS = {
    "en": {"class": "class", "function": "function", "method": "method", "struct": "struct", "interface": "interface",
           "trait": "trait", "impl": "implementation", "enum": "enum", "type": "type", "type alias": "type alias",
           "macro": "macro", "constant": "constant", "variable": "variable", "module": "module"},
    "zh": {"class": "类", "function": "函数", "method": "方法", "struct": "结构体", "interface": "接口",
           "trait": "特征（trait）", "impl": "实现块", "enum": "枚举", "type": "类型", "type alias": "类型别名",
           "macro": "宏", "constant": "常量", "variable": "变量", "module": "模块"},
}


def phrases(language: str) -> dict[str, str]:
    return ZH if language == "zh" else EN


def kind_name(kind: str, t: dict[str, str]) -> str:
    return KINDS[t["lang"]].get(kind, kind if t["lang"] == "en" else "定义")


LANG_NAMES = {"python": "Python", "go": "Go", "javascript": "JavaScript", "typescript": "TypeScript", "rust": "Rust",
              "java": "Java", "c": "C", "cpp": "C++", "c++": "C++", "csharp": "C#", "ruby": "Ruby", "php": "PHP",
              "kotlin": "Kotlin", "swift": "Swift", "scala": "Scala", "elixir": "Elixir", "shell": "Shell", "lua": "Lua"}


def lang_name(lang: str) -> str:
    """A programming language as its users write its name (`python` → `Python`)."""
    return LANG_NAMES.get(lang.lower(), lang)


# A step list reads as prose when each step is said by what it does: a call whose result is
# kept, an error check, a guard on length, the final return; not one template per kind.
_STEP: dict[str, dict[str, str]] = {
    "en": {"check_err": "It checks for an error: `{code}`.", "check_nil": "It checks whether a value is missing: `{code}`.",
           "check_set": "It checks that a value is there: `{code}`.",
           "check_len": "It checks a length: `{code}`.", "check_type": "It checks a type: `{code}`.",
           "check_first": "First it checks `{code}`.", "check_again": "Then it checks `{code}`.",
           "set_call": "It calls `{rhs}` and keeps the result in `{lhs}`.", "set_add": "It adds `{rhs}` to `{lhs}`.",
           "set_value": "It sets `{lhs}` to `{rhs}`.", "call_again": "Next it calls `{code}`.",
           "return_last": "Finally it returns `{code}`.", "loop_first": "It goes through `{code}` one at a time.",
           "loop_again": "It loops again, over `{code}`.", "loop_in": "It takes each `{item}` of `{seq}` in turn.",
           "check_empty": "It checks whether something is empty: `{code}`.", "return_bare": "It returns here.",
           "call_guard": "It makes sure it may go on: `{code}`.",
           "set_assert": "It asserts that `{x}` holds a `{type}`, and keeps it in `{lhs}`.",
           "set_append": "It appends to `{lhs}`: `{rhs}`.", "loop_pair": "It walks `{seq}`, taking `{a}` and `{b}` each time.",
           "return_func": "Finally it returns a function: `{code}`."},
    "zh": {"check_err": "检查是否出错：`{code}`。", "check_nil": "判断值是否为空：`{code}`。", "check_set": "确认值存在：`{code}`。",
           "check_len": "核对长度：`{code}`。", "check_type": "检查类型：`{code}`。",
           "check_first": "先判断 `{code}`。", "check_again": "再判断 `{code}` 是否成立。",
           "set_call": "调用 `{rhs}`，结果存入 `{lhs}`。", "set_add": "把 `{rhs}` 累加到 `{lhs}` 上。",
           "set_value": "令 `{lhs}` 为 `{rhs}`。", "call_again": "接着调用 `{code}`。",
           "return_last": "最后返回 `{code}`。", "loop_first": "逐个处理 `{code}`。",
           "loop_again": "再对 `{code}` 做一轮循环。", "loop_in": "依次取出 `{seq}` 中的每个 `{item}`。",
           "check_empty": "判断是否为空：`{code}`。", "return_bare": "到此返回。",
           "call_guard": "确认前提：`{code}`。",
           "set_assert": "把 `{x}` 断言为 `{type}` 类型，存入 `{lhs}`。",
           "set_append": "向 `{lhs}` 追加元素：`{rhs}`。", "loop_pair": "遍历 `{seq}`，每次得到 `{a}` 与 `{b}`。",
           "return_func": "最后返回一个函数：`{code}`。"},
}
_CHECK_NIL = {"en": ["It checks whether a value is missing: `{code}`.", "It tests for a missing value: `{code}`.",
                     "It guards against a missing value: `{code}`.", "It checks for no value at all: `{code}`."]}
_CALL_NEXT = {"en": ["Next it calls `{code}`.", "Then it calls `{code}`.", "After that comes `{code}`."],
              "zh": ["接着调用 `{code}`。", "再调用 `{code}`。", "然后执行 `{code}`。", "随后调用 `{code}`。"]}
_ASSIGN = re.compile(r"^(?:(?:let|const|var)\s+(?:mut\s+)?)?([^=!<>:+\-*/]+?)\s*(:=|\+=|=)\s*(.+)$")
_GUARD = re.compile(r"(?:^|\.)_?(?:check|ensure|validate|assert|require|verify)[A-Z_]?\w*\(", re.I)
_CALL = re.compile(r"^[A-Za-z_$][\w$.]*(?:\[[^\]]*\])?[\w$.]*\(")
_LOOP_IN = re.compile(r"^(?:\(?\s*(?:let|const|var)\s+)?([\w$, ]+?)\s+(?:in|of)\s+(.+)$|^([\w, ]+?)\s*:=\s*range\s+(.+)$")


def step_sentence(kind: str, code: str, nth: int, last: bool, t: dict[str, str]) -> str:
    """One step of a function, said by what it does. `nth`: how many steps of this kind came
    before it; `last`: it is the list's last step."""
    v = _STEP[t["lang"]]
    code = code.rstrip(" \\")  # a condition continued on the next line: its first line, without the `\\`
    if kind == "check":
        if re.search(r"\berr\s*!=\s*nil\b", code):
            return v["check_err"].format(code=code)
        if re.search(r"&&|\|\||\b(?:and|or)\b", code):  # a compound condition: no one kind of check
            return v["check_first" if nth == 0 else "check_again"].format(code=code)
        if re.search(r"\bis not None\b|!==?\s*(?:nil|null|undefined|NULL|nullptr)\b", code):
            return v["check_set"].format(code=code)
        if re.search(r"\bis None\b|===?\s*(?:nil|null|undefined|NULL|nullptr)\b", code):
            nil = _CHECK_NIL.get(t["lang"], [v["check_nil"]])
            return nil[seed(code) % len(nil)].format(code=code)  # (a guard a book writes many times)
        if re.search(r"^not len\(|^not [\w.]+$|[!=]==?\s*(?:\"\"|'')(?!\S)|\blen\([^)]*\)\s*==\s*0\b|\bis_empty\(\)|\.empty\(\)", code):
            return v["check_empty"].format(code=code)
        if re.search(r"\b(?:len|strlen|size)\(|\.length\b|\.size\(\)", code):
            return v["check_len"].format(code=code)
        if re.search(r"\bisinstance\(|\binstanceof\b|\.\(\*?[\w.]+\)", code):
            return v["check_type"].format(code=code)
        return v["check_first" if nth == 0 else "check_again"].format(code=code)
    if kind == "set":
        m = _ASSIGN.match(code)
        if m:
            lhs, op, rhs = m.group(1).strip(), m.group(2), m.group(3).strip()
            lhs = re.sub(r"(?:,\s*_)+$", "", lhs)  # `v, _ :=`: the value kept, the flag dropped
            if op == "+=":
                return v["set_add"].format(lhs=lhs, rhs=rhs)
            if re.match(r"^append\(\s*" + re.escape(lhs) + r"\s*,", rhs):  # only when it is the same slice
                return v["set_append"].format(lhs=lhs, rhs=rhs)
            cast = re.match(r"^([\w.]+)\.\((\*?[\w.]+)\)$", rhs)  # Go's type assertion is not a call
            if cast:
                return v["set_assert"].format(lhs=lhs, x=cast.group(1), type=cast.group(2))
            return v["set_call" if _CALL.match(rhs) else "set_value"].format(lhs=lhs, rhs=rhs)
    if kind == "call" and _GUARD.search(code):
        return v["call_guard"].format(code=code)
    if kind == "call" and nth > 0:
        forms = _CALL_NEXT[t["lang"]]  # a run of calls, each said its own way
        return forms[(nth - 1) % len(forms)].format(code=code)
    if kind == "return" and not code:
        return v["return_bare"]
    if kind == "return" and last and re.match(r"^(?:func\b|function\b|lambda\b|\([^)]*\)\s*=>)", code):
        return v["return_func"].format(code=code)
    if kind == "return" and last:
        return v["return_last"].format(code=code)
    m = _LOOP_IN.match(code) if kind == "loop" else None
    if m:
        item, seq = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        seq = seq.strip()
        if seq.count(")") > seq.count("("):  # `for (const x of xs)`: the loop's own bracket
            seq = seq[:seq.rindex(")")].rstrip()
        item = item.strip().removeprefix("_, ")
        pair = re.match(r"^(\w+),\s*(\w+)$", item)  # Go's `i, p := range xs`, Python's `k, v in d.items()`
        if pair:
            return v["loop_pair"].format(seq=seq, a=pair.group(1), b=pair.group(2))
        return v["loop_in"].format(item=item, seq=seq)
    if kind == "loop":
        return v["loop_first" if nth == 0 else "loop_again"].format(code=code)
    return t["step_" + kind].format(code=code)


def audience_in(audience: str, lang: str) -> str:
    """The audience as a Chinese sentence can carry it: a person's English words are quoted
    (「…」), never glued into the sentence."""
    if lang == "zh" and not re.search("[\u4e00-\u9fff]", audience):
        return f"「{audience.strip()}」"
    return audience


_RESULT = {
    "en": {"none": "It gives nothing back.", "bool": "It answers yes or no: it returns `{ret}`.",
           "func": "It returns a function, of type `{ret}`.", "pair": "It returns more than one value: `{ret}`.",
           "error": "It returns `{ret}`, the last of which says whether it failed."},
    "zh": {"none": "它没有返回值。", "bool": "它回答“是”或“否”：返回 `{ret}`。",
           "func": "它返回一个函数，类型为 `{ret}`。", "pair": "它返回多个值：`{ret}`。",
           "error": "它返回 `{ret}`，最后一个值表示是否出错。"},
}


def result_note(ret: str) -> str | None:
    """What the Returns item says after the type (English): a yes or no, a function, several values, a value
    and an error; '' for a plain type, None when nothing comes back."""
    r = ret.strip()
    if r in ("None", "void", "()", "undefined", "Unit"):
        return None
    if r in ("bool", "boolean", "Boolean", "_Bool"):
        return ": yes or no"
    if re.match(r"^func\b|^Callable\b|^\(.*\)\s*=>", r):
        return ": a function"
    if re.match(r"^\(.*,\s*error\)$", r):
        return ": the last value says whether it failed"
    if re.match(r"^\(.*,.*\)$|^tuple\[.*,.*\]$", r):
        return ": more than one value"
    return ""


def result_sentence(ret: str, t: dict[str, str]) -> str:
    """What a function gives back, said by its shape: nothing, a yes or no, a function (a Go
    middleware's constructor), several values, a value and an error."""
    r, v = ret.strip(), _RESULT[t["lang"]]
    if r in ("None", "void", "()", "undefined", "Unit"):
        return v["none"]
    if r in ("bool", "boolean", "Boolean", "_Bool"):
        return v["bool"].format(ret=r)
    if re.match(r"^func\b|^Callable\b|^\(.*\)\s*=>", r):
        return v["func"].format(ret=r)
    if re.match(r"^\(.*,\s*error\)$|^Result<", r):
        return v["error"].format(ret=r) if r.startswith("(") else t["result_type"].format(ret=r)
    if re.match(r"^\(.*,.*\)$|^tuple\[.*,.*\]$", r):
        return v["pair"].format(ret=r)
    return t["result_type"].format(ret=r)


def steps_intro(name: str, n: int, t: dict[str, str]) -> str:
    """The line before a step list; a list of a few steps says how many."""
    return t["steps_intro_short" if n <= 3 else "steps_intro"].format(name=name, n=n)
