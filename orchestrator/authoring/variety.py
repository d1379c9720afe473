"""Sentences said more than one way (issue 35), for the offline writer in English.

A sentence every chapter (or every symbol) writes reads as a form when it is always the same:
47–83 % of a book's prose shared its shape with two or more other sentences. Here the same
fact has several wordings (`VARY_EN`), picked by a number the caller knows (the chapter's, a
name's hash: `seed`), and a function's steps are joined into sentences (`steps_prose`) instead
of a numbered form."""

from __future__ import annotations

import re

# A sentence every chapter (or every symbol) writes reads as a form when it is always the same
# (issue 35: 47–83 % of the prose shared its shape with two others). These say the same fact in
# several ways; `vary` picks one by a number the caller knows (the chapter's, a name's hash), so
# a book of a dozen chapters meets each way at most about twice. English only: a Chinese book
# keeps its one form per fact (its tests and its punctuation rules read them).
VARY_EN: dict[str, list[str]] = {
    "can_intro": ["What you can now do:", "After this chapter you can:", "With this chapter read, you are able to:",
                  "You should now be able to:", "What this chapter leaves you with:", "From here you can:"],
    "can_trace": ["- Follow a call from `{a}` to `{b}`{via}.", "- Trace the way from `{a}` down to `{b}`{via}.",
                  "- Walk from `{a}` to `{b}`{via}, one resolved call at a time.",
                  "- Say how `{a}` reaches `{b}`{via}.", "- Read `{a}` and know why it ends in `{b}`{via}.",
                  "- Explain the chain that starts at `{a}` and ends at `{b}`{via}."],
    "can_use": ["- Find `{name}` in `{file}` and read what it does before you change the {kind}.",
                "- Open `{file}` at `{name}` before touching the {kind}.",
                "- Know where `{name}` lives (`{file}`) and what to read before you edit it.",
                "- Change `{name}` with its code in view: it is in `{file}`.",
                "- Point a colleague to `{file}` when `{name}` comes up.",
                "- Start from `{name}` in `{file}` when you debug this part."],
    "can_used": ["- Know who depends on `{name}`: {n} other files use it, so a change to it reaches them.",
                 "- Weigh a change to `{name}` knowing that {n} other files use it.",
                 "- Remember that `{name}` has users in {n} other files.",
                 "- Expect a change to `{name}` to be felt in {n} other files.",
                 "- Treat `{name}` with care: {n} files outside it rely on it.",
                 "- See why `{name}` matters: {n} other files reach for it."],
    "can_next": ["- Go on to {link}, which builds on these pieces.", "- Read {link} next: it uses what you just saw.",
                 "- Continue with {link}, which leans on this chapter.", "- Turn to {link}, built on these parts.",
                 "- Move on to {link}; it starts where this one stops.", "- Open {link}, the chapter that relies on this one."],
    "builds_on": ["It builds on {links}: read those first if a name below is new to you.",
                  "Read {links} first if a name below is new to you: this chapter builds on it.",
                  "The names it borrows come from {links}.", "This chapter leans on {links}.",
                  "Some of what follows was explained in {links}.", "{links} comes before this chapter for a reason: the code below uses it."],
    "takes_from": ["It uses these names explained in other chapters:", "Names from other chapters that appear below:",
                   "Borrowed from elsewhere in the book:", "What it takes from other chapters:",
                   "The code below reaches into other chapters for these:", "From the rest of the book it uses:"],
    "used_by": ["Later, {links} build on what this chapter explains.", "{links} come back to these pieces later.",
                "What is explained here returns in {links}.", "Further on, {links} rely on this chapter.",
                "Keep these pieces in mind for {links}.", "{links} pick up where this leaves off."],
    "files_one": ["This chapter reads `{file}`, {n} lines of {lang}.", "All of it is in `{file}` ({n} lines of {lang}).",
                  "The code is one {lang} file, `{file}`, {n} lines long.", "Its source is `{file}`: {n} lines of {lang}.",
                  "`{file}` holds everything here, in {n} lines of {lang}.", "One file, `{file}` ({n} lines), is the subject."],
    "files_many": ["This chapter reads {files}: {n} lines of {lang} in all.", "Its code is spread over {files} ({n} lines).",
                   "{files} hold the code of this chapter, {n} lines together.",
                   "The source here is {files}, {n} lines of {lang}.", "It covers {files}, {n} lines altogether.",
                   "Between them, {files} make up the {n} lines this chapter reads."],
    "calls_other": ["It calls {names}, covered in [{title}]({ch}.md).", "For {names} it turns to [{title}]({ch}.md).",
                    "{names} come from [{title}]({ch}.md).", "It hands part of the work to {names} ([{title}]({ch}.md)).",
                    "[{title}]({ch}.md) explains {names}, which it calls.", "It reaches {names}, the subject of [{title}]({ch}.md)."],
    "calls_inner": ["It calls {names}, from the same part of the code.", "Nearby code does some of it: {names}.",
                    "It leans on {names}, defined in this part.", "{names}, close by in this part, do some of the work.",
                    "It also uses {names} from these files.", "Helpers in the same files: {names}."],
    "calls_local": ["It relies on {names}, explained in this chapter.", "{names} appear in this chapter too.",
                    "It uses {names}, which this chapter also reads.", "Its calls go to {names}, explained here as well.",
                    "{names}, which it calls, have their place in this chapter.", "It calls {names}; see them in this chapter."],
    "calls_local1": ["It relies on {names}, explained in this chapter.", "{names} appears in this chapter too.",
                     "It uses {names}, which this chapter also reads.", "Its call goes to {names}, explained here as well.",
                     "{names}, which it calls, has its place in this chapter.", "It calls {names}; see it in this chapter.",
                     "For part of the work it turns to {names}, a little further on.", "{names} does a share of it (below)."],
    "beside_line": ["`{name}`, the {kind} in `{file}` (lines {a}–{b}){summary}", "The {kind} `{name}` sits in `{file}`, lines {a}–{b}{summary}",
                    "In `{file}`, lines {a}–{b}, is the {kind} `{name}`{summary}", "`{file}` also defines the {kind} `{name}` (lines {a}–{b}){summary}",
                    "Lines {a}–{b} of `{file}` hold the {kind} `{name}`{summary}", "Then the {kind} `{name}` (`{file}`, {a}–{b}){summary}"],
    "result_type": ["It gives back `{ret}`.", "The result is a `{ret}`.", "What comes back is `{ret}`.",
                    "It returns a value of type `{ret}`.", "Its answer is a `{ret}`.", "The caller gets `{ret}` back."],
    "params_from_sig_one": ["`{name}` takes one parameter:", "There is one parameter:", "Its one parameter:",
                            "A single argument goes in:", "The signature has one parameter:", "It is given one value:"],
    "params_from_sig": ["The signature of `{name}` takes:", "Its parameters:", "What goes in:", "The arguments it takes:",
                        "The signature lists:", "`{name}` is called with:"],
    "params_same": ["Its other parameters are documented word for word as for `{name}` above.",
                    "The rest of its parameters read as they do for `{name}` above.",
                    "For its other parameters, see `{name}` above: the doc says the same.",
                    "Its remaining parameters carry the same doc as `{name}`'s.",
                    "The other parameters are those of `{name}`, documented alike.",
                    "What `{name}` says of its parameters holds here too."],
    "notes_intro": ["The doc comment adds:", "The doc comment goes on:", "More from its doc comment:",
                    "Its doc comment also notes:", "A note from the doc comment:", "The doc comment warns:"],
    "defined": ["`{name}` is a {kind} in `{file}` (lines {a}–{b}).", "`{name}`, lines {a}–{b} of `{file}`, is a {kind}.",
                "In `{file}`, lines {a}–{b} hold the {kind} `{name}`.", "The {kind} `{name}` spans lines {a}–{b} of `{file}`.",
                "`{file}` defines `{name}` at lines {a}–{b}, a {kind}.", "Next comes `{name}`, a {kind} (`{file}`, lines {a}–{b})."],
    "defined_line": ["`{name}` is a {kind} in `{file}` (line {a}).", "`{file}` declares the {kind} `{name}` on line {a}.",
                     "On line {a} of `{file}` sits `{name}`, a {kind}.", "The {kind} `{name}` is one line, `{file}`:{a}.",
                     "`{name}` ({kind}) is declared at `{file}` line {a}.", "A one-line {kind}: `{name}`, `{file}` line {a}."],
    "usage_intro": ["The tests and examples show `{name}` at work, in `{file}` from line {a}:",
                    "Here `{name}` is used by `{file}`, from line {a}:", "A caller of `{name}`, in `{file}` at line {a}:",
                    "`{file}` exercises `{name}` starting at line {a}:", "To see `{name}` run, look at `{file}` from line {a}:",
                    "One use of `{name}`, taken from `{file}` (line {a} on):"],
    "usage_intro_more": ["`{name}` at work, in `{file}` from line {a}:", "And `{name}`, in `{file}` from line {a}:",
                         "`{file}` also uses `{name}`, at line {a}:", "Another use: `{name}` in `{file}`, line {a}:",
                         "Line {a} of `{file}` shows `{name}`:", "For `{name}`, see `{file}` from line {a}:"],
    "usage_in_test": ["The call comes from `{test}`, which shows what a caller of `{name}` writes and expects.",
                      "That is `{test}`: what a caller of `{name}` writes, and what it expects back.",
                      "The test `{test}` holds it, with the answer it expects from `{name}`.",
                      "It is part of `{test}`, which pins down what `{name}` must do.",
                      "`{test}` is where it comes from: a caller's view of `{name}`.",
                      "Taken from `{test}`, it shows `{name}` as a caller meets it."],
    "usage_in_test_more": ["This one is from `{test}`.", "It comes from `{test}`.", "That is the test `{test}`.",
                           "`{test}` is its test.", "The test here is `{test}`.", "See `{test}` for the whole case."],
    "flow_member_short": ["`{name}`, a {kind} of `{owner}`, is {n} lines long (`{file}`, lines {a}–{b}).",
                          "`{owner}` keeps `{name}` short: {n} lines of `{file}` ({a}–{b}).",
                          "Next in `{owner}` comes `{name}`, only {n} lines (`{file}`, lines {a}–{b}).",
                          "`{name}` fits in {n} lines, `{file}` {a}–{b}; it belongs to `{owner}`.",
                          "A short {kind} of `{owner}`: `{name}`, lines {a}–{b} of `{file}`.",
                          "`{name}` ({kind} of `{owner}`) takes up lines {a}–{b} of `{file}`."],
    "usage_same_test": ["The same test, `{test}`, uses `{name}` too.", "`{test}` uses `{name}` as well.",
                        "`{name}` appears in that test, `{test}`, too.", "Still `{test}`: now with `{name}`.",
                        "In `{test}` again, `{name}` has its turn.", "`{test}` goes on to `{name}`."],
    "usage_after": ["This is how a caller uses `{name}`: the call above is taken from the project's own code.",
                    "A caller writes `{name}` like this; the lines are the project's own.",
                    "That is `{name}` as the project's own code calls it.",
                    "The lines above are real code of the project, calling `{name}`.",
                    "So the project itself uses `{name}`.", "Real use, not an illustration: the project uses `{name}` so."],
    "flow_next": ["From `{caller}` the call goes on to `{name}`, the {kind} in `{file}` (lines {a}–{b}).",
                  "`{caller}` hands the call to `{name}` (`{file}`, lines {a}–{b}).",
                  "Next on the path: `{name}`, which `{caller}` calls; it is in `{file}`, lines {a}–{b}.",
                  "`{caller}` leads to `{name}`, a {kind} at `{file}` lines {a}–{b}.",
                  "The call continues in `{name}` (`{file}`, {a}–{b}), reached from `{caller}`.",
                  "What `{caller}` calls next is `{name}`, lines {a}–{b} of `{file}`."],
    "flow_member": ["`{name}`, a {kind} of `{owner}` (`{file}`, lines {a}–{b}), is part of its work.",
                    "`{owner}` also has `{name}` (`{file}`, lines {a}–{b}).", "Part of `{owner}`'s job falls to `{name}`, lines {a}–{b} of `{file}`.",
                    "`{name}` belongs to `{owner}`: `{file}`, lines {a}–{b}.", "On `{owner}` there is `{name}` too (`{file}` {a}–{b}).",
                    "`{owner}` carries the {kind} `{name}`, at `{file}` lines {a}–{b}."],
    "flow_member_also": ["`{name}` is another {kind} of `{owner}` (`{file}`, lines {a}–{b}).",
                         "One more {kind} of `{owner}`: `{name}` (`{file}`, lines {a}–{b}).",
                         "`{owner}` has `{name}` as well, at lines {a}–{b} of `{file}`.",
                         "Then `{name}`, again on `{owner}` (`{file}` {a}–{b}).",
                         "Also on `{owner}`: `{name}`, lines {a}–{b} of `{file}`.",
                         "`{name}` completes this part of `{owner}` (`{file}`, lines {a}–{b})."],
    # (a Rust or C# book quotes dozens of doc examples: a dozen ways to say where one comes from)
    "doc_example": ["The doc comment shows it in use (an illustration, not part of the source files):",
                    "Its doc comment carries an example, shown here as written; it is not among the source files:",
                    "An illustration from the doc comment, not code of the project's files:",
                    "The maintainers' example, from the doc comment (not a source file):",
                    "How the doc comment calls it (an illustration only):",
                    "Here is the doc comment's own example; no source file holds it:",
                    "The doc's sample call, an illustration rather than project code:",
                    "Written in the doc comment, not in a source file, is this use:",
                    "From the doc comment, an example a caller might write:",
                    "A use the doc comment sketches (it is not part of the source files):",
                    "The doc comment illustrates the call this way:",
                    "As the doc comment shows it (an example, not source code):"],
    "open_type": ["At its centre is the {kind} `{name}`{methods}: what it holds, how one is made, and what it does.",
                  "The {kind} `{name}`{methods} is the heart of it: the data it keeps, how one comes to be, and its work.",
                  "Most of it is about the {kind} `{name}`{methods}: the state it keeps, how it is built, and what it does.",
                  "It turns on the {kind} `{name}`{methods}: what one holds, how one is made, and what one does.",
                  "The chapter is built around the {kind} `{name}`{methods}: its fields, its making, and its behaviour.",
                  "Here the {kind} `{name}`{methods} does the work: what it holds, how to get one, and what it is for."],
    "open_beside": ["Beside it stand {names}.", "Around it are {names}.", "Next to it: {names}.",
                    "Alongside it: {names}.", "With it come {names}.", "Also here: {names}."],
    "flow_head": ["How `{name}` does its work", "`{name}` at work", "Inside `{name}`", "What happens in `{name}`",
                  "Following `{name}`", "The work of `{name}`"],
}


def vary(key: str, n: int, t: dict[str, str]) -> str:
    """The phrase `key`, said the n-th of its ways (English), else its one form."""
    forms = VARY_EN.get(key) if t.get("lang") == "en" else None
    return forms[n % len(forms)] if forms else t[key]


def seed(*names: str) -> int:
    """A number from names, the same in every run (no salted hash): which way to say a thing."""
    import zlib

    return zlib.crc32("\x1f".join(names).encode("utf-8"))


_CLAUSE = re.compile(r"^(?:First |Then |Next |Finally |After that )?[Ii]t (.+?)\.?$")
_OPEN = ["It first {a}, then {b}.", "To begin, it {a}; next it {b}.", "Its first move: it {a}, and then {b}.",
         "It opens by doing two things: it {a}, and it {b}.", "First it {a}. Right after, it {b}."]
_MID = ["Then it {a}, and {b}.", "After that it {a}; it also {b}.", "Next, it {a} and {b}.", "It goes on: it {a}, then {b}.",
        "Further down it {a}, and after that {b}."]
_ONE = ["Then it {a}.", "Next it {a}.", "After that it {a}.", "It also {a}.", "Further on it {a}."]
_LAST = ["Finally it {a}.", "Last, it {a}.", "It ends as it {a}.", "In the end it {a}.", "Its last step: it {a}."]


def steps_prose(sentences: list[str], n: int) -> str:
    """Step sentences ("It calls `x` and keeps the result in `y`.") as one paragraph of joined
    clauses, two to a sentence, opened and closed in one of several ways chosen by `n`: a walk
    through the code, not a numbered form. A sentence that is not an "It …" clause stays whole."""
    clauses: list[str] = []
    for s in sentences:
        m = _CLAUSE.match(s.strip())
        clauses.append(m.group(1) if m else "\x00" + s.strip())
    out: list[str] = []
    i, k = 0, n
    while i < len(clauses):
        c = clauses[i]
        if c.startswith("\x00"):
            out.append(c[1:])
            i += 1
            continue
        last = i == len(clauses) - 1
        pair = not last and not clauses[i + 1].startswith("\x00") and i + 1 < len(clauses) - 1
        if pair:
            forms = _OPEN if i == 0 else _MID
            out.append(forms[k % len(forms)].format(a=c, b=clauses[i + 1]))
            i += 2
        else:
            forms = _LAST if last and i else _ONE if i else ["It {a}."]
            out.append(forms[k % len(forms)].format(a=c))
            i += 1
        k += 1
    return " ".join(out)
