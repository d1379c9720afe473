"""The words of the working files a person reads at the gates — the gate cards, needs-human.md,
RESUME.md — and of the CLI's gate messages, one table per language (the book's `language:`).

What a program reads back stays as it is in every language: the field names of a card
(`- artifact_hash:`, `- decision:`), the decisions (`approved`), markers, file names, commands
and hashes. The headings a card is parsed by are read in every language (`heading_re`), so a
card written before a book changed its language, or before this table existed, is still read."""

from __future__ import annotations

import re
from functools import cache

EN: dict[str, str] = {
    # gate cards
    "card_title": "Gate: {gate}{who}",
    "preview": "Preview", "recommendation": "Recommendation", "risks": "Risks", "alternatives": "Alternatives",
    "decision": "Decision", "chapters": "Chapters",
    "no_risks": "none found by the checks",
    "rec_approve": "approve",
    "rec_plan_broken": "reject: the plan cannot be built as it is",
    "rec_plan_risks": "modify: fix what the risks list, or approve knowing them",
    "rec_unreadable": "reject: the review cannot be read ({error})",
    "rec_blocking": "reject: the review has blocking findings",
    "rec_major": "approve with care: the review has major findings the editor will address",
    "alt_approve": "approve: `{cmd}`",
    "alt_reject": "reject: `{cmd}` (then {step} is redone with your reason)",
    "alt_modify": "modify: `{cmd}` ({step} is redone following them)",
    "group_batch": "batch {n}", "group_book": "the whole book",
    "group_intro": "One decision for {n} chapter(s): the card's decision is each chapter's, unless a line "
                   "below the decision names one.",
    "alt_group_approve": "approve them all: `{cmd}`",
    "alt_group_one": "decide for one chapter: `{cmd}` (the others keep the card's decision)",
    "alt_group_reject": "reject them all: `{cmd}` (then {step} is redone for each, with your reason)",
    "more_lines": "… {n} more lines: open {path}",
    # needs-human.md
    "nh_title": "Needs a person",
    "nh_intro": "Chapters marked NEEDS_HUMAN_REVIEW: fix the cause, then `book run` or `book resume` retries them.",
    "nh_none": "(nothing is waiting)",
    "nh_gate": "waiting at the {gate} gate: {card} — `{cmd}`",
    "nh_rollback": "the {gate} gate was {decision}; its rollback ({step}) did not complete: `book run` tries it again",
    # RESUME.md
    "r_title": "RESUME — {title}",
    "r_intro": "The letter to the next session: `book resume` reads this first, then checkpoint.md, then verifies "
               "everything against the files (the files win).",
    "r_overview": "Project overview", "r_progress": "Current progress", "r_tasks": "Unfinished tasks",
    "r_problems": "Known problems", "r_decisions": "Key decisions", "r_next": "Next steps", "r_files": "Important files",
    "colon": ": ",
    "st_missing": "missing", "st_half_finished": "half_finished", "st_done": "done", "st_edited": "edited",
    "st_stale": "stale",
    "r_f_title": "title", "r_f_source": "source", "r_f_chapters": "chapters", "r_f_workspace": "workspace",
    "r_f_language": "language: {language}, gates: {gates}", "r_f_phase": "phase", "r_complete": " (complete)",
    "r_f_batch": "batch", "r_f_done": "done", "r_f_active": "in progress", "r_f_todo": "not started",
    "r_task_gate": "{gate} gate{who}: waiting for your decision ({card}) — priority high",
    "r_of": " of {unit}", "r_label": " {unit}",
    "r_task": "{unit} {step}: {status} — priority {prio}",
    "prio_high": "high", "prio_normal": "normal", "prio_low": "low",
    "r_more": "… and {n} more (see `book scan`)",
    "r_none": "none",
    "r_needs": "{ch}: NEEDS_HUMAN_REVIEW — {why} (its dependent chapters wait)",
    "r_half_kept": "{path}: half-finished, {why}",
    "r_half": "{path}: half-finished (recovered by `book resume --strategy {strategy}`; if it is yours, "
              "`book accept {unit}` keeps it)",
    "r_edited": "{path}: edited by hand, kept; what was made from it is redone",
    "r_outline": "outline: {error}",
    "r_card_book": "{card}: waiting at the {gate} gate; everything after it waits",
    "r_card_ch": "{card}: waiting at the {gate} gate; {who} and what depends on it wait",
    "r_interrupted": "the last run was interrupted; in-flight generations left .partial files",
    "r_strategy": "recovery strategy: {strategy}", "r_gates": "gates: {gates}",
    "r_decision": "gate {gate}{who}: {decision}{why}", "r_why": " — {reason}",
    "r_nothing": "nothing left: the book is at `output/publish/index.html`; `book scan{ws}` to check",
    "r_decide": "decide at the {gate} gate{label}: read {card}, then `book approve {gate}{who}{ws}` "
                "(or `book reject {gate}{who} --reason \"...\"{ws}`)",
    "r_fix": "fix what needs a person (above), then:",
    "r_resume": "`book resume{ws}`  (or `book resume --no-run{ws}` to only reconcile)",
    "r_file_checkpoint": "progress matrix", "r_file_needs": "what waits for a person",
    "r_file_db": "ledger (`book log`, `book replay`, `book cost`)", "r_file_outline": "the plan (editable)",
    "r_file_finals": "final chapters", "r_file_site": "the HTML book",
    # the CLI at the gates
    "c_none": "no card is waiting for a decision",
    "c_summary": "{gate}: {n} waiting ({who}) — `{cmd}`",
    "c_the_book": "the book",
    "c_duplicate": "duplicate: the {gate} card{who} is already {decision}; nothing changed",
    "c_decided_go": "{decision}: {card}. `book run` will continue.",
    "c_decided_redo": "{decision}: {card}. `book run` will redo {step} with your {words}.",
    "c_words_modify": "instructions", "c_words_reject": "reason",
    "c_approving": "approving {n} {what}(s):",
    "c_listing": "  {unit}: {what} (card {card}, confirmation {confirmation})",
    "c_none_of": "no {what} is waiting; `book gates` lists what waits",
    "c_walked": "{decided} decided, {skipped} skipped",
    "c_next": "`book run` continues from these decisions (or `book review --run` next time)",
    "w_keys": "[a]pprove  [r]eject  [m]odify  [s]kip  [q]uit > ",
    "w_why": "   why? (the redo is given it) > ",
    "w_what": "   what should change? > ",
    "w_which": "   which chapters ({chapters}; Enter: all of them)? > ",
    "w_bad_key": "   {key!r}? one of a, r, m, s, q",
    "w_head": "── {gate} gate{who}: {artifact} (card {card})",
    "w_yours": "   this is your own edit",
    "w_changes": "   changes against {label}:", "w_same": "   the same text as {label}",
    "w_last_approved": "the version last approved ({name})", "w_before": "the version before ({name})",
    "w_more_diff": "   … {n} more diff lines: open {path}",
    "w_done": "   {decision}",
    "approved": "approved", "rejected": "rejected", "modified": "modified",
    # what the run and a decision say at a gate
    "g_own": "a person's own edit: approved by default",
    "g_own_warn": "{artifact} is your own edit: approved at the {gate} gate by default",
    "g_same": "{artifact}: redone after the {gate} gate was {decision}, and the same text came back{why}; its card "
              "is new: approve it, or reject it with other words",
    "g_same_offline": " (the offline writer follows only \"shorter\", \"add an example\" and \"explain X\" for a name "
                      "in the code: edit the file by hand, then approve it)",
    "g_changed": "{name} was changed outside book since the card was approved; the card is remade",
    "g_expired": "the card has expired: {what} changed since it was made; here is the new card: {card} "
                 "(confirmation {confirmation})",
    # a decision the command line cannot take
    "u_missing": "{artifact} is missing: there is nothing to approve at the {gate} gate",
    "u_gate": "unknown gate {gate!r}: one of {gates}",
    "u_per_chapter": "the {gate} gate is per chapter: say which, e.g. `book approve {gate} ch03`",
    "u_not_grouped": "{unit} names a group card, but the {gate} gate has a card per chapter (gate_grain: {grain} in "
                     "book.yaml): name the chapter",
    "u_other_gate": "card {confirm} is the {other} gate's{who}; a card cannot approve another gate",
    "u_for": " for {unit}", "u_of": " of {unit}",
    "u_no_card": "there is no card for the {gate} gate{who} yet; `book gates` lists them",
    "u_mismatch": "card {confirm} does not match the {gate} card ({card}); `book gates` shows it",
    "u_name_gate": "name the gate (outline, research, review, final), or approve every waiting card with "
                   "`book approve --all`",
    "u_all": "--all approves every waiting card: name no chapter and no --card",
    "u_reason": "say why with --reason: the redo is given it as instructions",
    "u_instructions": "say what to change with --instructions",
    # the end of a run
    "s_run": "generated {made} file(s); {failed} failed; {waiting} waiting for a person",
    "s_behind": "; {n} step(s) wait behind {cards} gate card(s)", "s_skipped": "; {n} skipped",
    "s_needs": "needs a person (see output/memory/needs-human.md):",
    "s_waiting": "waiting for your decision (`book gates`, then `book approve`/`book reject`/`book modify`):",
}

ZH: dict[str, str] = {
    "card_title": "关卡：{gate}{who}",
    "preview": "预览", "recommendation": "建议", "risks": "风险", "alternatives": "可选操作",
    "decision": "决定", "chapters": "章节",
    "no_risks": "检查没有发现问题",
    "rec_approve": "批准",
    "rec_plan_broken": "驳回：这份大纲按现状无法执行",
    "rec_plan_risks": "修改：处理下面列出的风险，或在了解风险后批准",
    "rec_unreadable": "驳回：审查结果无法读取（{error}）",
    "rec_blocking": "驳回：审查中有阻断性问题",
    "rec_major": "谨慎批准：审查中有重要问题，定稿编辑会处理",
    "alt_approve": "批准：`{cmd}`",
    "alt_reject": "驳回：`{cmd}`（随后按你给的理由重做 {step}）",
    "alt_modify": "修改：`{cmd}`（随后按你的要求重做 {step}）",
    "group_batch": "第 {n} 批", "group_book": "全书",
    "group_intro": "一个决定涵盖 {n} 个章节：除非决定下方有一行单独点名某一章，卡片的决定适用于每一章。",
    "alt_group_approve": "全部批准：`{cmd}`",
    "alt_group_one": "只对一章作决定：`{cmd}`（其余章节沿用卡片的决定）",
    "alt_group_reject": "全部驳回：`{cmd}`（随后按你的理由逐章重做 {step}）",
    "more_lines": "……另有 {n} 行：请打开 {path}",
    "nh_title": "需要人工处理",
    "nh_intro": "标记为 NEEDS_HUMAN_REVIEW 的章节：排除原因后，运行 `book run` 或 `book resume` 会重试。",
    "nh_none": "（没有等待处理的事项）",
    "nh_gate": "在 {gate} 关卡等待决定：{card} —— `{cmd}`",
    "nh_rollback": "{gate} 关卡的决定是 {decision}，但回退步骤（{step}）尚未完成：`book run` 会再试",
    "r_title": "RESUME —— {title}",
    "r_intro": "写给下一次会话的信：`book resume` 先读它，再读 checkpoint.md，然后逐一与文件核对（以文件为准）。",
    "r_overview": "项目概况", "r_progress": "当前进度", "r_tasks": "未完成的任务",
    "r_problems": "已知问题", "r_decisions": "关键决定", "r_next": "下一步", "r_files": "重要文件",
    "colon": "：",
    "st_missing": "缺失", "st_half_finished": "未写完", "st_done": "完成", "st_edited": "已手工修改",
    "st_stale": "需重做",
    "r_f_title": "书名", "r_f_source": "源代码", "r_f_chapters": "章节数", "r_f_workspace": "工作区",
    "r_f_language": "语言：{language}，关卡：{gates}", "r_f_phase": "阶段", "r_complete": "（已完成）",
    "r_f_batch": "批次", "r_f_done": "已完成", "r_f_active": "进行中", "r_f_todo": "未开始",
    "r_task_gate": "{gate} 关卡{who}：等待你的决定（{card}）—— 优先级 高",
    "r_of": "（{unit}）", "r_label": "（{unit}）",
    "r_task": "{unit} {step}：{status} —— 优先级 {prio}",
    "prio_high": "高", "prio_normal": "中", "prio_low": "低",
    "r_more": "……另有 {n} 项（见 `book scan`）",
    "r_none": "无",
    "r_needs": "{ch}：NEEDS_HUMAN_REVIEW —— {why}（依赖它的章节在等待）",
    "r_half_kept": "{path}：未写完，{why}",
    "r_half": "{path}：未写完（`book resume --strategy {strategy}` 会恢复它；如果是你写的，`book accept {unit}` 会保留它）",
    "r_edited": "{path}：经过手工修改，已保留；由它生成的内容会重做",
    "r_outline": "大纲：{error}",
    "r_card_book": "{card}：在 {gate} 关卡等待；其后的一切都在等待",
    "r_card_ch": "{card}：在 {gate} 关卡等待；{who} 以及依赖它的章节在等待",
    "r_interrupted": "上一次运行被中断；正在生成的内容留下了 .partial 文件",
    "r_strategy": "恢复策略：{strategy}", "r_gates": "关卡：{gates}",
    "r_decision": "关卡 {gate}{who}：{decision}{why}", "r_why": " —— {reason}",
    "r_nothing": "没有剩余工作：书在 `output/publish/index.html`；用 `book scan{ws}` 检查",
    "r_decide": "在 {gate} 关卡{label}作决定：阅读 {card}，然后运行 `book approve {gate}{who}{ws}`"
                "（或 `book reject {gate}{who} --reason \"...\"{ws}`）",
    "r_fix": "先处理上面需要人工的问题，然后：",
    "r_resume": "`book resume{ws}`（或用 `book resume --no-run{ws}` 只做核对）",
    "r_file_checkpoint": "进度矩阵", "r_file_needs": "等待人工处理的事项",
    "r_file_db": "账本（`book log`、`book replay`、`book cost`）", "r_file_outline": "大纲（可以编辑）",
    "r_file_finals": "定稿章节", "r_file_site": "HTML 版的书",
    "c_none": "没有等待决定的卡片",
    "c_summary": "{gate}：{n} 张等待（{who}）—— `{cmd}`",
    "c_the_book": "全书",
    "c_duplicate": "重复的决定：{gate} 卡片{who}已经是 {decision}；没有任何改动",
    "c_decided_go": "{decision}：{card}。`book run` 会继续。",
    "c_decided_redo": "{decision}：{card}。`book run` 会按你的{words}重做 {step}。",
    "c_words_modify": "要求", "c_words_reject": "理由",
    "c_approving": "批准 {n} 张{what}：",
    "c_listing": "  {unit}：{what}（卡片 {card}，confirmation {confirmation}）",
    "c_none_of": "没有等待的{what}；`book gates` 列出等待的卡片",
    "c_walked": "已决定 {decided} 张，跳过 {skipped} 张",
    "c_next": "`book run` 会按这些决定继续（下次可以用 `book review --run`）",
    "w_keys": "[a]批准  [r]驳回  [m]修改  [s]跳过  [q]退出 > ",
    "w_why": "   理由？（重做时会交给模型）> ",
    "w_what": "   要改什么？> ",
    "w_which": "   哪些章节（{chapters}；回车：全部）？> ",
    "w_bad_key": "   {key!r}？请输入 a、r、m、s、q 之一",
    "w_head": "── {gate} 关卡{who}：{artifact}（卡片 {card}）",
    "w_yours": "   这是你自己的修改",
    "w_changes": "   与{label}相比的改动：", "w_same": "   与{label}文字相同",
    "w_last_approved": "上次批准的版本（{name}）", "w_before": "上一个版本（{name}）",
    "w_more_diff": "   ……另有 {n} 行差异：请打开 {path}",
    "w_done": "   {decision}",
    "approved": "已批准", "rejected": "已驳回", "modified": "已要求修改",
    "g_own": "你自己的修改：默认批准",
    "g_own_warn": "{artifact} 是你自己的修改：在 {gate} 关卡默认批准",
    "g_same": "{artifact}：{gate} 关卡的决定是 {decision}，重做后得到的文字与原来相同{why}；卡片已重新生成：请批准，或换一种说法再驳回",
    "g_same_offline": "（离线写作只懂“更短”“加一个例子”和“解释 X”（X 为代码中的名字）：请手工修改文件后再批准）",
    "g_changed": "{name} 在批准之后被手工修改过；卡片已重新生成",
    "g_expired": "卡片已过期：{what} 在卡片生成后有了改动；新卡片是 {card}（confirmation {confirmation}）",
    "u_missing": "{artifact} 不存在：{gate} 关卡没有可批准的内容",
    "u_gate": "未知的关卡 {gate!r}：可选 {gates}",
    "u_per_chapter": "{gate} 关卡按章节决定：请说明是哪一章，例如 `book approve {gate} ch03`",
    "u_not_grouped": "{unit} 指的是一张分组卡片，但 {gate} 关卡是每章一张卡片（book.yaml 中 gate_grain: {grain}）：请写出章节",
    "u_other_gate": "卡片 {confirm} 属于 {other} 关卡{who}；一张卡片不能批准另一个关卡",
    "u_for": "（{unit}）", "u_of": "（{unit}）",
    "u_no_card": "{gate} 关卡{who}还没有卡片；`book gates` 会列出卡片",
    "u_mismatch": "卡片 {confirm} 与 {gate} 关卡的卡片（{card}）不符；`book gates` 会显示它",
    "u_name_gate": "请写出关卡（outline、research、review、final），或用 `book approve --all` 批准所有等待的卡片",
    "u_all": "--all 会批准所有等待的卡片：不要再写章节或 --card",
    "u_reason": "请用 --reason 说明理由：重做时会把它作为指示",
    "u_instructions": "请用 --instructions 说明要改什么",
    "s_run": "生成 {made} 个文件；{failed} 个失败；{waiting} 个等待人工处理",
    "s_behind": "；{n} 个步骤在 {cards} 张关卡卡片后等待", "s_skipped": "；跳过 {n} 个",
    "s_needs": "需要人工处理（见 output/memory/needs-human.md）：",
    "s_waiting": "等待你的决定（`book gates`，然后 `book approve`/`book reject`/`book modify`）：",
}

TABLES = {"en": EN, "zh": ZH}


def words(language: str | None) -> dict[str, str]:
    """The table of a book's language (English for any other)."""
    return TABLES.get(language or "en", EN)


def say(language: str | None, key: str, **kw: object) -> str:
    return words(language)[key].format(**kw)


def language_of(x) -> str:
    """The language of a Book (its book.yaml), or English."""
    cfg = getattr(x, "cfg", None)
    return getattr(cfg, "language", None) or "en"


@cache
def heading_re(key: str) -> re.Pattern[str]:
    """A card's `## ` heading in any language: what the card parser splits on."""
    names = "|".join(re.escape(t[key]) for t in TABLES.values())
    return re.compile(rf"^## (?:{names})[ \t]*$", re.M)


def headings(key: str) -> set[str]:
    """A `## ` heading's text in every language (RESUME.md's own sections, whatever it was written in)."""
    return {t[key] for t in TABLES.values()}
