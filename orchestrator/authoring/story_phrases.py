"""The words of the book's shape and a chapter's story (story.py), en and zh: one table per
language, every key in both."""

from __future__ import annotations

EN = {
    "part_overview": "The big picture", "part_using": "Using {name}", "part_inside": "Inside {name}",
    "part_foundations": "Foundations and utilities",
    "ov_title": "{name} at a glance", "ov_title_names": "{name} at a glance — {names}",
    "ov_said": "{name}, in the words of its README: “{said}”",
    "ov_lead": "This chapter is the big picture of {name}, for {audience}: what the project is for, in its own "
               "words; how a user meets it; its entry points and its parts; and the path one call takes through "
               "them. Then it opens the code a user meets first: {names}.",
    "ov_code": "The code a user meets first", "ov_for": "What {name} is for",
    "ov_own_words": "In its own words (`{file}`, line {line}):",
    "ov_example": "A first example",
    "ov_example_from": "This is how a user meets {name}: the example of `{file}` (lines {a}–{b}), exactly as it is written there.",
    "ov_example_names": "It writes {names}, the entry points this book starts from.",
    "ov_example_name": "It writes {names}, the entry point this book starts from.",
    "ov_example_then": "Further down `{file}` (lines {a}–{b}), it runs what it has set up:",
    "ov_example_command": "What it sets up runs when a user types the command `{command}`, as the README shows; the command is the project's script `{file}` (lines {a}–{b}):",
    "ov_no_example": "The project's README and guides show no example of use; the tests in this book's later chapters do.",
    "ov_example_test": "The README and guides of {name} show no example of use; its tests do. This one, the body of a test in `{file}` (lines {a}–{b}), is how the project's own authors use it:",
    "ov_entries": "The entry points", "ov_entries_intro": "The names a user writes first, and where the book explains them:",
    "ov_table_head": "| Entry point | Kind | Defined in | Explained in |\n|---|---|---|---|",
    "ov_arch": "The architecture at a glance",
    "ov_arch_intro": "The book follows the code in {n} parts, in the order a newcomer explores it:",
    "ov_arch_one": "The book follows the code in one part:",
    "ov_part_line": "- **Part {k}, {part}**: {chapters}.",
    "ov_path": "Following one call",
    "ov_path_intro": "{lead} A user calls `{first}` (`{file}`, line {line}); from there the "
                     "calls the code makes, each one resolved to its definition, lead down to the core:",
    "ov_path_served": "{lead} The example hands the `{type}` that `{entry}` returns to the "
                      "server it starts ({server}, another package's), which serves each request through its `{first}` "
                      "(`{file}`, line {line}); from "
                      "there the calls the code makes lead down to where the work is done:",
    "ov_path_command": "{lead} The command's script `{script}` ends its work at line {at}, where it calls `{first}` (`{file}`, "
                       "line {line}); from there the calls the code makes, each one resolved to its definition, lead down to the core:",
    "ov_path_invoked": "{lead} The example calls the value it built as a function, which runs the `operator fun invoke` "
                       "of its type, `{first}` (`{file}`, line {line}); from there the calls the code makes, each one resolved "
                       "to its definition, lead down to the core:",
    "ov_path_missing": "{lead} `{type}` defines no method for the example's `{call}(…)`, so Ruby sends the call to its "
                       "`{first}` (`{file}`, line {line}); from there the calls the code makes, each one resolved to its "
                       "definition, lead down to the core:",
    "ov_path_made_member": "{lead} `{type}` defines no method for the example's `{call}(…)`: its constructor gives each "
                           "object such functions, made by `{maker}` (`{file}`, line {made_at}), and each of them calls "
                           "`{first}` (line {line}); from there the calls the code makes, each one resolved to its "
                           "definition, lead down to the core:",
    "ov_path_bound_member": "{lead} `{type}` defines no method for the example's `{call}(…)`: its constructor binds its "
                            "`{first}` (`{file}`, line {line}) to each such name (line {made_at}); from there the calls the "
                            "code makes, each one resolved to its definition, lead down to the core:",
    "ov_path_looped": "{lead} The example loops over the `{type}` it makes, and each turn of the loop runs its `{first}` "
                      "(`{file}`, line {line}); from there the calls the code makes, each one resolved to its definition, "
                      "lead down to the core:",
    "ov_path_made": "{lead} `{entry}` returns a `{type}`, and calling what it returns "
                    "runs `{first}` (`{file}`, line {line}); from there the calls the code makes, each one resolved to "
                    "its definition, lead down to the core:",
    "ov_path_made_fn": "{lead} `{entry}` is the function `{maker}` returns: calling it runs `{first}` (`{file}`, line "
                       "{line}); from there the calls the code makes, each one resolved to its definition, lead down to the core:",
    "ov_path_step": "{k}. `{caller}` calls `{callee}`, the {kind} in `{file}` (line {line}){where}.",
    "ov_path_where": ", explained in [{title}]({ch}.md)", "ov_here": "this chapter",
    "ov_path_mixin": " (`{cls}` has it from `{mod}`: `{text}`, `{file}` line {line}, mixes it in)",
    "ov_path_step_at": "{k}. `{caller}` calls `{callee}` at line {at}: the {kind} lives in `{file}` (line {line}){where}.",
    "ov_path_step_at2": "{k}. `{caller}` calls `{callee}` on line {at} and hands it the work; see `{file}`, line {line}{where}.",
    "ov_path_step_at3": "{k}. `{caller}` calls `{callee}` (line {at}), whose definition opens line {line} of `{file}`{where}.",
    "ov_path_step_at4": "{k}. `{caller}` calls `{callee}` next, from line {at}; that {kind} starts at `{file}` line {line}{where}.",
    "ov_path_before": "Before that, at line {pat}, it calls `{prep}` (`{file}`, line {line}).",
    "ov_path_before2": "First, though, line {pat} runs `{prep}`, defined in `{file}` at line {line}.",
    "ov_path_before3": "Earlier in the same body, line {pat} calls `{prep}` (`{file}` line {line}).",
    "ov_path_hop": "{k}. `{caller}` runs `{callee}` through `{via}` (line {at}): {why}; `{callee}` is the {kind} in "
                   "`{file}` (line {line}){where}.",
    "hop_served": "a server calls the object it is handed for each request, and runs its `{short}`",
    "ov_path_returned": "{k}. `{caller}` returns `{callee}`, a {kind} it declares in its own body (line {at}); "
                        "`{caller}` does not run it: whoever is handed it does, later, each time (a server, for "
                        "each request){where}.",
    "hop_field": "the field is set from `{short}` (`{tie_file}`, line {tie})",
    "hop_apply": "`{via}(…)` runs the function itself, bound to the object",
    "hop_yielded": "the block `&:{short}` is run on what that method yields: the `{type}` made in `{tie_file}`, line {tie}",
    "hop_called": "calling the object `{via}`, made on line {tie}, runs its `{short}`",
    "hop_table": "`{via}` calls the table's member its key names, and line {tie} has just set the key to `{short}`",
    "hop_callback": "`{via}` hands the text to the standard library's HTML parser, which calls back the parser's own "
                    "`{short}` for each tag it meets",
    "hop_serde": "serde, handed the deserializer, reads the value of the type asked for through its deserialize "
                 "methods; for a value whose shape the data tells, `{short}`",
    "hop_future": "it returns a `{type}`, and awaiting one runs the future its `{via}` impl makes",
    "hop_iterated": "it returns a `{type}`, and looping over one runs its `{short}` for each item",
    "hop_generated": "`{via}` is written at build time from `{short}`, marked `[CreateSyncVersion]`",
    "hop_implemented": "`{via}` only declares it, and `{type}` is the one type that implements it",
    "hop_platform": "`{via}` only declares it; each platform implements it, and on the JVM `{type}` does",
    "hop_made": "`{via}` only declares it; of the types that implement it, the example's calls make a `{type}`",
    "hop_handed": "`{via}` only declares it; of the types that implement it, the example hands over a `{type}` the "
                  "project names",
    "hop_plain": "`{via}` only declares it; of the types that implement it, `{type}` is the plain one the others' names extend",
    "hop_default": "`{via}` only declares it; of the types that implement it, `{type}` is the one the code uses "
                   "unless told otherwise (`{tie_file}`, line {tie})",
    "hop_registry": "`{via}` only declares it; of the types that implement it, the project's table of them "
                    "(`{tie_file}`, line {tie}) gives `{type}` for the name the example's data uses",
    "ov_path_beyond": "Here the map stops: `{last}` goes on with `{call}(…)` (line {at}), which it cannot resolve to a "
                      "definition of this source, so the rest of the way is the docs' to tell.",
    "ov_path_end": "That is the path this book widens, part by part.",
    "ov_path_fetch": "{lead} The example exports the `{type}` it makes as its module's default, and a runtime of fetch "
                     "handlers (Cloudflare Workers, Bun, Deno) calls its `{first}` (`{file}`, line {line}) for each "
                     "request; from there the calls the code makes lead down to where the work is done:",
    "ov_path_lead": "One call shows how the parts meet.", "ov_path_then": "Then it runs what it set up.",
    "ov_path_setup_package": "What the example imports is made before its first line runs: the package's `{index}` "
                             "(line {at}) exports `new {cls}(…)` as its default.",
    "ov_path_setup_package2": "That runs `{first}` (`{file}`, line {line}), which goes down through the code like this:",
    "ov_path_setup": "The example first sets things up. Its call of `{first}` (`{file}`, line {line}) goes down "
                     "through the code like this:",
    "ov_path_setup_one": "The example first sets things up: its call of `{first}` (`{file}`, line {line}) makes what "
                         "it then runs.",
    "ov_path_docs": "The repository map cannot follow this one: no call from the entry points resolves to a single "
                    "definition (generic or macro-built code). The docs show the way instead: the example in `{file}` "
                    "calls {calls}, in that order, and the chapters below take those names one at a time.",
    "ov_path_unknown": "The repository map resolves no call from the entry points, and the docs show none: the chapters "
                       "below start from the entry points themselves.",
    "ov_path_none": "`{first}` (`{file}`, line {line}) is where a user's call begins; the chapters that follow open "
                    "its work one part at a time.",
    "flow_head": "How `{name}` does its work", "flow_intro": "The work flows in this order: {chain}.",
    "flow_next": "From `{caller}` the call goes on to `{name}`, the {kind} in `{file}` (lines {a}–{b}).",
    "flow_member": "`{name}`, a {kind} of `{owner}` (`{file}`, lines {a}–{b}), is part of its work.",
    "flow_member_also": "`{name}` is another {kind} of `{owner}` (`{file}`, lines {a}–{b}).",
    "flow_member_short": "`{name}`, a {kind} of `{owner}`, is {n} lines long (`{file}`, lines {a}–{b}).",
    "flow_head_one": "What `{name}` does",
    "beside": "Beside the main path",
    "beside_line": "`{name}`, the {kind} in `{file}` (lines {a}–{b}){summary}",
    "reference": "Reference",
    "ref_head": "| Name | Kind | Where | Used from | What it is |\n|---|---|---|---|---|",
    "ref_used": "{n} files", "ref_above": "introduced above", "ref_used1": "1 file", "ref_used0": "no other file resolved",
    "can_now": "Summary", "can_intro": "What you can now do:",
    "can_trace": "- Follow a call from `{a}` to `{b}`{via}.",
    "can_via": " through {names}",
    "can_use": "- Find `{name}` in `{file}` and read what it does before you change the {kind}.",
    "can_used": "- Know who depends on `{name}`: {n} other files use it (an import or a call the map resolves to it), "
                "so a change to it reaches them.",
    "can_next": "- Go on to {link}, which builds on these pieces.",
}
ZH = {
    "part_overview": "全局概览", "part_using": "使用 {name}", "part_inside": "{name} 的内部",
    "part_foundations": "基础与工具",
    "ov_title": "{name} 全景", "ov_title_names": "{name} 全景 — {names}",
    "ov_said": "{name} 的 README 这样介绍自己：",
    "ov_lead": "本章是 {name} 的全景，写给{audience}：项目自己怎么说它的用途，用户如何初次接触它，它的入口与组成部分，"
               "以及一次调用穿过这些部分的路径。然后打开用户最先接触的代码：{names}。",
    "ov_code": "用户最先接触的代码", "ov_for": "{name} 是做什么的",
    "ov_own_words": "项目自己的说法（`{file}` 第 {line} 行）：",
    "ov_example": "第一个例子",
    "ov_example_from": "用户就是这样认识 {name} 的：下面是 `{file}` 中的例子（第 {a}–{b} 行），一字未改。",
    "ov_example_names": "它用到了 {names}，本书就从这些入口讲起。",
    "ov_example_name": "它用到了 {names}，本书就从这个入口讲起。",
    "ov_example_then": "`{file}` 稍后（第 {a}–{b} 行）运行了前面准备好的东西：",
    "ov_example_command": "用户按 README 所示输入命令 `{command}` 时，前面准备好的东西就会运行；这个命令就是项目的脚本 `{file}`（第 {a}–{b} 行）：",
    "ov_no_example": "项目的 README 和文档没有给出用法示例；后面各章引用的测试会展示用法。",
    "ov_example_test": "{name} 的 README 和文档没有给出用法示例，它的测试给出了。下面是 `{file}` 中一个测试的主体（第 {a}–{b} 行），也就是项目作者自己的用法：",
    "ov_entries": "入口", "ov_entries_intro": "用户最先写下的名字，以及本书讲解它们的章节：",
    "ov_table_head": "| 入口 | 类别 | 定义于 | 讲解于 |\n|---|---|---|---|",
    "ov_arch": "架构一览",
    "ov_arch_intro": "本书按新人探索代码的顺序，分 {n} 个部分讲解：",
    "ov_arch_one": "本书只有一个部分：",
    "ov_part_line": "- **第 {k} 部分，{part}**：{chapters}。",
    "ov_path": "跟随一次调用",
    "ov_path_intro": "{lead}用户调用 `{first}`（`{file}` 第 {line} 行），之后代码发出的每个调用都解析到它的定义，一路通向核心：",
    "ov_path_served": "{lead}例子把 `{entry}` 返回的 `{type}` 交给它启动的服务器（{server}，另一个包的），服务器通过 `{first}`"
                      "（`{file}` 第 {line} 行）处理每个请求；之后代码发出的调用一路通向真正干活的地方：",
    "ov_path_command": "{lead}命令的脚本 `{script}` 在第 {at} 行调用 `{first}`（`{file}` 第 {line} 行），把工作交了出去；"
                       "之后代码发出的每个调用都解析到它的定义，一路通向核心：",
    "ov_path_invoked": "{lead}例子把它造出的值当作函数调用，这会运行其类型的 `operator fun invoke`，即 `{first}`"
                       "（`{file}` 第 {line} 行），之后代码发出的每个调用都解析到它的定义，一路通向核心：",
    "ov_path_missing": "{lead}`{type}` 没有定义例子里的 `{call}(…)` 这个方法，所以 Ruby 把这次调用交给它的 `{first}`"
                       "（`{file}` 第 {line} 行），之后代码发出的每个调用都解析到它的定义，一路通向核心：",
    "ov_path_made_member": "{lead}`{type}` 没有定义例子里的 `{call}(…)` 这个方法：它的构造函数用 `{maker}`（`{file}` 第 "
                           "{made_at} 行）给每个对象造出这样的函数，每个函数都调用 `{first}`（第 {line} 行），"
                           "之后代码发出的每个调用都解析到它的定义，一路通向核心：",
    "ov_path_bound_member": "{lead}`{type}` 没有定义例子里的 `{call}(…)` 这个方法：它的构造函数把自己的 `{first}`（`{file}` "
                            "第 {line} 行）绑定到每个这样的名字上（第 {made_at} 行），之后代码发出的每个调用都解析到它的定义，一路通向核心：",
    "ov_path_looped": "{lead}例子遍历它创建的 `{type}`，循环每转一次就运行它的 `{first}`（`{file}` 第 {line} 行），"
                      "之后代码发出的每个调用都解析到它的定义，一路通向核心：",
    "ov_path_made": "{lead}`{entry}` 返回一个 `{type}`，调用它返回的对象就会运行 `{first}`（`{file}` 第 {line} 行），"
                    "之后代码发出的每个调用都解析到它的定义，一路通向核心：",
    "ov_path_made_fn": "{lead}`{entry}` 是 `{maker}` 返回的函数：调用它就会运行 `{first}`（`{file}` 第 {line} 行），"
                       "之后代码发出的每个调用都解析到它的定义，一路通向核心：",
    "ov_path_step": "{k}. `{caller}` 调用 `{callee}`，即 `{file}` 中的{kind}（第 {line} 行）{where}。",
    "ov_path_where": "，在[{title}]({ch}.md)中讲解", "ov_here": "本章",
    "ov_path_mixin": "（`{cls}` 的这个方法来自 `{mod}`：`{file}` 第 {line} 行的 `{text}` 把它混入）",
    "ov_path_step_at": "{k}. `{caller}` 在第 {at} 行调用 `{callee}`，即 `{file}` 中的{kind}（第 {line} 行）{where}。",
    "ov_path_step_at2": "{k}. `{caller}` 在第 {at} 行把工作交给 `{callee}`（`{file}` 第 {line} 行）{where}。",
    "ov_path_step_at3": "{k}. 第 {at} 行，`{caller}` 调用 `{callee}`，它定义在 `{file}` 第 {line} 行{where}。",
    "ov_path_step_at4": "{k}. 接着 `{caller}` 在第 {at} 行调用 `{callee}`，这个{kind}从 `{file}` 第 {line} 行开始{where}。",
    "ov_path_before": "在此之前，第 {pat} 行先调用了 `{prep}`（`{file}` 第 {line} 行）。",
    "ov_path_before2": "不过第 {pat} 行先运行了 `{prep}`，它定义在 `{file}` 第 {line} 行。",
    "ov_path_before3": "同一函数体更早的第 {pat} 行调用了 `{prep}`（`{file}` 第 {line} 行）。",
    "ov_path_hop": "{k}. `{caller}` 通过第 {at} 行的 `{via}` 运行 `{callee}`：{why}；`{callee}` 是 `{file}` 中的{kind}（第 {line} 行）{where}。",
    "hop_served": "服务器对每个请求调用交给它的对象，运行它的 `{short}`",
    "ov_path_returned": "{k}. `{caller}` 返回 `{callee}`，这是它在自己函数体内声明的{kind}（第 {at} 行）；`{caller}` 并不运行它，"
                        "拿到它的一方（例如服务器，每个请求一次）之后才运行它{where}。",
    "hop_field": "这个字段由 `{short}` 设置（`{tie_file}` 第 {tie} 行）",
    "hop_apply": "`{via}(…)` 运行的就是这个函数本身（绑定到该对象）",
    "hop_yielded": "块 `&:{short}` 运行在该方法 yield 出的值上：`{tie_file}` 第 {tie} 行造出的 `{type}`",
    "hop_called": "调用第 {tie} 行创建的对象 `{via}`，就会运行它的 `{short}`",
    "hop_table": "`{via}` 调用表中由键指定的成员，而第 {tie} 行刚把键设为 `{short}`",
    "hop_callback": "`{via}` 把文本交给标准库的 HTML 解析器，后者每遇到一个标签就回调该解析器自己的 `{short}`",
    "hop_serde": "serde 拿到这个反序列化器后，通过它的各个 deserialize 方法读取所求类型的值；"
                 "值的形状由数据决定时，调用的是 `{short}`",
    "hop_future": "它返回一个 `{type}`，await 它会运行其 `{via}` 实现生成的 future",
    "hop_iterated": "它返回一个 `{type}`，遍历它时每一项都会运行其 `{short}`",
    "hop_generated": "`{via}` 由构建时的代码生成器从标有 `[CreateSyncVersion]` 的 `{short}` 写出",
    "hop_implemented": "`{via}` 只声明了它，实现它的只有 `{type}` 一个类型",
    "hop_platform": "`{via}` 只声明了它；每个平台各有实现，在 JVM 上是 `{type}`",
    "hop_made": "`{via}` 只声明了它；实现它的类型中，示例的调用创建的是 `{type}`",
    "hop_handed": "`{via}` 只声明了它；实现它的类型中，示例传入的是项目命名的一个 `{type}` 值",
    "hop_plain": "`{via}` 只声明了它；实现它的类型中，`{type}` 是其他类型名字所扩展的那个基本类型",
    "hop_default": "`{via}` 只声明了它；实现它的类型中，代码默认使用的是 `{type}`（`{tie_file}` 第 {tie} 行）",
    "hop_registry": "`{via}` 只声明了它；实现它的类型中，项目的对照表（`{tie_file}` 第 {tie} 行）为例子数据所用的名字给出 `{type}`",
    "ov_path_beyond": "仓库映射到这里为止：`{last}` 接着调用 `{call}(…)`（第 {at} 行），映射无法把它解析到本项目的定义，之后的路要看文档。",
    "ov_path_end": "本书接下来一部分一部分地展开这条路径。",
    "ov_path_fetch": "{lead}例子把它创建的 `{type}` 作为模块的默认导出，运行 fetch 处理器的运行时（Cloudflare Workers、Bun、Deno）"
                     "对每个请求调用它的 `{first}`（`{file}` 第 {line} 行）；之后代码发出的调用一路通向真正干活的地方：",
    "ov_path_lead": "一次调用就能看出各部分如何衔接。", "ov_path_then": "然后它运行准备好的东西。",
    "ov_path_setup_package": "例子导入的东西在它第一行运行之前就已造好：包的 `{index}`（第 {at} 行）把 `new {cls}(…)` "
                             "作为默认导出。",
    "ov_path_setup_package2": "这会运行 `{first}`（`{file}` 第 {line} 行），它是这样穿过代码的：",
    "ov_path_setup": "例子先做准备。它对 `{first}`（`{file}` 第 {line} 行）的调用是这样穿过代码的：",
    "ov_path_setup_one": "例子先做准备：它对 `{first}`（`{file}` 第 {line} 行）的调用造出随后要运行的东西。",
    "ov_path_docs": "仓库映射无法跟踪这条路径：入口发出的调用都解析不到唯一的定义（泛型或宏生成的代码）。文档给出了路线：`{file}` 中的例子依次调用 {calls}，后面各章逐一讲解这些名字。",
    "ov_path_unknown": "仓库映射解析不出入口发出的调用，文档也没有示例：后面各章从入口本身讲起。",
    "ov_path_none": "用户的调用从 `{first}`（`{file}` 第 {line} 行）开始；后面的章节逐部分展开它的工作。",
    "flow_head": "`{name}` 如何完成工作", "flow_intro": "工作按这个顺序进行：{chain}。",
    "flow_next": "调用从 `{caller}` 继续到 `{name}`，即 `{file}` 中的{kind}（第 {a}–{b} 行）。",
    "flow_member": "`{name}` 是 `{owner}` 的{kind}（`{file}` 第 {a}–{b} 行），承担它的一部分工作。",
    "flow_member_also": "`{name}` 同样是 `{owner}` 的{kind}，位于 `{file}` 第 {a}–{b} 行。",
    "flow_member_short": "`{owner}` 的{kind} `{name}` 只有 {n} 行（`{file}` 第 {a}–{b} 行）。",
    "flow_head_one": "`{name}` 做什么",
    "beside": "主路径之外",
    "beside_line": "`{name}`：`{file}` 中的{kind}（第 {a}–{b} 行）{summary}",
    "reference": "参考",
    "ref_head": "| 名字 | 类别 | 位置 | 使用者 | 说明 |\n|---|---|---|---|---|",
    "ref_used": "{n} 个文件", "ref_above": "见上文", "ref_used1": "1 个文件", "ref_used0": "未解析到其他文件",
    "can_now": "小结", "can_intro": "读完本章，你可以：",
    "can_trace": "- 跟踪一次从 `{a}` 到 `{b}` 的调用{via}。",
    "can_via": "，途经 {names}",
    "can_use": "- 在 `{file}` 中找到 `{name}`，修改这个{kind}之前先读懂它做什么。",
    "can_used": "- 知道谁依赖 `{name}`：其他 {n} 个文件用到它，改动会影响它们。",
    "can_next": "- 继续阅读{link}，它建立在这些部件之上。",
}


def phrases(lang: str) -> dict[str, str]:
    return ZH if lang == "zh" else EN
