"""What a group of code is for, read from its names and docs: the role gives a chapter its
title's topic and its metaphor. Each role lists words that betray it (in file and directory
names, the top symbols' names, the package doc) and, per language of the book, a topic and
metaphors that fit it. A chapter takes the first metaphor of its role that no other chapter
of the book has taken; when all are taken, one of the general metaphors."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Role:
    key: str
    words: tuple[str, ...]
    topic: dict[str, str]  # language -> a title's topic ("Routing requests")
    metaphors: dict[str, tuple[tuple[str, str], ...]]  # language -> ((phrase, what it means), ...)


def _r(key, words, en, zh, men, mzh) -> Role:
    return Role(key, tuple(words.split()), {"en": en, "zh": zh}, {"en": tuple(men), "zh": tuple(mzh)})


ROLES: tuple[Role, ...] = (
    _r("app", "app application wsgi asgi server",
       "The application object", "应用对象",
       [("a theatre's stage manager", "every actor, light and cue answers to one person who runs the show"),
        ("an orchestra's conductor", "the musicians play their own parts, and one person keeps them together")],
       [("剧院的舞台监督", "每位演员、每盏灯、每个提示都听从一个人的调度"),
        ("乐队指挥", "乐手们各奏各的声部，由一个人把他们统一起来")]),
    _r("routing", "router route routes routing mux multiplexer dispatch dispatcher url",
       "Routing requests", "请求路由",
       [("a telephone switchboard", "each incoming call is plugged through to the one line that should answer it"),
        ("a railway junction", "points set in advance send each train onto its own track")],
       [("电话总机", "每个打进来的电话都被接到应该接听的那条线路上"),
        ("铁路道岔", "事先扳好的道岔把每列火车引向各自的轨道")]),
    _r("tree", "tree node trie radix",
       "The lookup tree", "查找树",
       [("a family tree", "shared ancestors are written once and each branch adds only what is new"),
        ("a set of nested folders", "you open one level at a time until the path runs out")],
       [("家谱", "共同的祖先只写一次，每个分支只添加新的部分"),
        ("层层嵌套的文件夹", "一层一层打开，直到路径走完")]),
    _r("middleware", "middleware middlewares chain wrap wrapper interceptor hook hooks plugin",
       "Middleware and hooks", "中间件与钩子",
       [("an airport security line", "every passenger passes the same checkpoints in order, and any one may stop them"),
        ("a relay race", "each runner does one leg of the work and hands the baton on")],
       [("机场安检通道", "每位乘客按顺序经过同样的检查点，任何一个检查点都可以拦下他"),
        ("接力赛", "每位选手跑完自己那一棒，再把接力棒交给下一位")]),
    _r("context", "context ctx locals globals scope state current",
       "Context and state", "上下文与状态",
       [("a luggage tag", "it travels with the request and says where it came from and where it goes"),
        ("a patient's chart", "whoever treats the case next reads what the others wrote")],
       [("行李牌", "它跟着请求一路走，写明从哪里来、要到哪里去"),
        ("病历", "下一位接手的医生会读到之前所有人写下的记录")]),
    _r("errors", "error errors err exception exceptions panic fail failure backtrace",
       "Errors and failures", "错误与失败",
       [("a smoke alarm", "it stays quiet until something is wrong, then says clearly what and where"),
        ("a doctor's referral letter", "each hand that passes it on adds a line of context")],
       [("烟雾报警器", "平时不出声，一旦出事就清楚地告诉你出了什么事、在哪里"),
        ("转诊单", "每经过一个人的手，就多添一行说明")]),
    _r("storage", "storage storages store stores persist persistence disk file database db table tables record",
       "Storing data", "数据存储",
       [("a warehouse with numbered shelves", "every item has a place, and a ledger says which"),
        ("a filing cabinet", "things are kept in order so that finding one is quick")],
       [("带编号货架的仓库", "每件货物都有固定的位置，账本上写着在哪一格"),
        ("文件柜", "东西按顺序存放，找起来很快")]),
    _r("cache", "cache caching cached memo memoize lru",
       "Caching", "缓存",
       [("a pantry next to the kitchen", "what is used often is kept close so nobody walks to the cellar"),
        ("a sticky note on the monitor", "the answer you needed a minute ago is still right there")],
       [("厨房边的小储藏柜", "常用的东西放在手边，不必每次都跑到地窖去取"),
        ("贴在显示器上的便利贴", "刚才用过的答案还贴在那里")]),
    _r("query", "query queries search filter select where condition predicate match",
       "Queries", "查询",
       [("a library catalogue", "you describe what you want and it tells you where to look"),
        ("a sieve", "only what matches the holes passes through")],
       [("图书馆目录", "你描述想要的书，它告诉你去哪里找"),
        ("筛子", "只有合乎孔眼的东西才能通过")]),
    # not "completion" or "shell": a completion script's code is about the shell, and the
    # completion role has it (cobra's PowerShell chapter was titled "Commands and flags")
    _r("commands", "command commands cli cmd args argv flag flags subcommand",
       "Commands and flags", "命令与参数",
       [("a restaurant menu", "each dish has a name, a description and the options you may ask for"),
        ("a remote control", "each button is a command, and some buttons open a sub-menu")],
       [("餐厅菜单", "每道菜都有名字、说明和可以点的选项"),
        ("遥控器", "每个按钮是一条命令，有的按钮还会打开子菜单")]),
    _r("completion", "completion completions complete bash zsh fish powershell",
       "Shell completion", "命令行补全",
       [("a predictive keyboard", "it offers the next word before you finish typing it"),
        ("a helpful shop assistant", "you start to ask and they already know which shelf you mean")],
       [("输入法的联想词", "你还没打完，下一个词已经摆在眼前"),
        ("热心的店员", "你刚开口，他就知道你要找哪一排货架")]),
    _r("serialization", "json serialize serializer serialization deserialize deserializer encode encoder decode "
       "decoder marshal unmarshal parse parser tag tagged ser de value",
       "Encoding and decoding data", "数据的编码与解码",
       [("a shipping department", "goods are packed into standard boxes to travel and unpacked on arrival"),
        ("an interpreter at a meeting", "the same meaning crosses from one language into another")],
       [("发货部", "货物被装进标准的箱子运出，到了再拆开"),
        ("会议上的翻译", "同样的意思从一种语言转到另一种语言")]),
    _r("http", "request requests response responses http client fetch send headers body status wsgi asgi "
       "transport",
       "Requests and responses", "请求与响应",
       [("a post office counter", "a letter goes out with an address and a reply comes back with a stamp"),
        ("a waiter taking orders", "the order goes to the kitchen and the plate comes back to the table")],
       [("邮局柜台", "信写好地址寄出去，回信盖着邮戳寄回来"),
        ("点菜的服务员", "菜单送进厨房，菜端回餐桌")]),
    _r("retry", "retry retries backoff timeout timeouts delay limit jitter",
       "Retries and timeouts", "重试与超时",
       [("redialling a busy number", "wait a little, try again, and give up after a few attempts"),
        ("a kitchen timer", "when it rings, whatever was cooking is taken off the stove")],
       [("重拨占线的电话", "稍等片刻再拨，试几次不通就放弃"),
        ("厨房定时器", "铃一响，锅里的东西就得关火")]),
    _r("config", "config configuration settings options option defaults env environment",
       "Configuration", "配置",
       [("a control panel", "every dial has a default, and you only turn the ones you care about"),
        ("a recipe's notes in the margin", "the same dish, adjusted to this kitchen")],
       [("控制面板", "每个旋钮都有默认位置，你只需调整关心的那几个"),
        ("菜谱边上的批注", "同一道菜，按这间厨房的条件做了调整")]),
    _r("templates", "template templates templating render rendering view views jinja",
       "Templates and rendering", "模板与渲染",
       [("a form letter", "the text is written once and the blanks are filled in for each reader"),
        ("a stencil", "the same shape is painted again and again with different colours")],
       [("套用信函", "正文只写一次，每位收信人的空白处各自填写"),
        ("模板喷绘", "同一个图形，用不同的颜色一遍遍喷出来")]),
    _r("sessions", "session sessions cookie cookies signing signer secure auth",
       "Sessions", "会话",
       [("a coat check", "you hand something over and get a ticket to claim it back later"),
        ("a hotel key card", "the card itself holds little; the front desk knows what it opens")],
       [("衣帽寄存处", "把东西交出去，拿一张票，之后凭票取回"),
        ("酒店房卡", "卡本身没什么内容，前台知道它能开哪扇门")]),
    _r("store", "createstore store subscribe listener listeners setstate getstate selector selectors "
       "slice immer devtools persist",
       "State stores", "状态仓库",
       [("a shared whiteboard", "everyone reads the same board and is told when someone changes it"),
        ("a newspaper subscription", "you sign up once and every new edition is delivered to you")],
       [("共享白板", "大家看的是同一块白板，有人改动时每个人都会得到通知"),
        ("报纸订阅", "订一次，以后每一期都会送到你手上")]),
    _r("macros", "macro macros macro_rules ensure bail format",
       "Macros", "宏",
       [("a rubber stamp", "one short gesture leaves the same full imprint every time"),
        ("a text expander", "a few keystrokes unfold into the whole phrase")],
       [("橡皮图章", "轻轻一按，每次都留下同样完整的印记"),
        ("文本扩展器", "敲几个键就展开成一整段话")]),
    _r("engine", "engine connection connections pool pooling dialect driver cursor execute transaction",
       "Connections and execution", "连接与执行",
       [("a taxi rank", "cars wait in line, each passenger takes the next one, and it returns when done"),
        ("an engine room", "the rest of the ship gives orders; here they are carried out")],
       [("出租车候车点", "车辆排队等候，乘客坐上下一辆，用完再回来排队"),
        ("轮机舱", "船上其他地方下达命令，在这里真正执行")]),
    _r("dialects", "dialect dialects mysql postgresql postgres sqlite oracle mssql mariadb pg",
       "Database dialects", "数据库方言",
       [("a set of phrasebooks", "one traveller, a different book for each country's way of saying the same thing"),
        ("power plug adapters", "the same device works in every country once the right adapter is on")],
       [("一套外语常用语手册", "同一位旅行者，每个国家各用一本，说的是同一件事"),
        ("电源转换插头", "插上合适的转换头，同一台设备在每个国家都能用")]),
    _r("orm", "orm mapper mapped mapping relationship relationships declarative unitofwork identity",
       "Mapping objects to rows", "对象与数据行的映射",
       [("a translator between two offices", "each side keeps its own forms, and the translator keeps them in step"),
        ("a library's loan register", "it knows which book is out, with whom, and what changed since")],
       [("两个办公室之间的翻译", "双方各用自己的表格，由翻译让它们保持一致"),
        ("图书馆的借阅登记簿", "它知道哪本书借出去了、在谁手里、之后有什么变化")]),
    _r("events", "event events signal signals emit emitter listen dispatch_event observer",
       "Events and signals", "事件与信号",
       [("a doorbell", "whoever is inside hears it and decides what to do"),
        ("a radio broadcast", "one station sends and any number of listeners tune in")],
       [("门铃", "屋里的人听到铃声，自己决定怎么办"),
        ("无线电广播", "一个电台发送，任意多的听众都可以收听")]),
    _r("logging", "log logger logging logs debug trace",
       "Logging", "日志",
       [("a ship's logbook", "every event is written down in order, so the voyage can be retold later"),
        ("a flight recorder", "it keeps quietly recording, and is read when something went wrong")],
       [("航海日志", "每件事都按顺序记下来，之后可以完整地复述这段航程"),
        ("飞行记录仪", "它默默地一直记录，出事之后才会被拿出来读")]),
    _r("utils", "util utils utility utilities helper helpers common internal misc tools shared",
       "Helpers used everywhere", "到处用到的辅助函数",
       [("a toolbox", "small, separate tools that the rest of the code picks up when it needs them"),
        ("a kitchen drawer", "the small things every recipe needs now and then")],
       [("工具箱", "一件件独立的小工具，其他代码需要时就拿来用"),
        ("厨房抽屉", "每道菜偶尔都要用到的小物件")]),
    _r("types", "types type typing interface interfaces protocol protocols trait traits schema",
       "Types and interfaces", "类型与接口",
       [("an electrical socket standard", "any plug of the right shape fits, whoever made it"),
        ("a job description", "it says what must be done, not who does it or how")],
       [("电源插座标准", "只要插头形状对，谁造的都能插上"),
        ("岗位说明书", "它规定要做什么，而不规定由谁做、怎么做")]),
)

GENERAL: dict[str, tuple[tuple[str, str], ...]] = {
    "en": (("a ship's logbook", "every event is written down in order before anything else happens"),
           ("a recipe card", "a fixed list of steps that gives the same dish every time"),
           ("a post office sorting room", "items arrive in any order and leave sorted by destination"),
           ("a bookmark", "it remembers where you were so you can continue from there"),
           ("a front desk", "the one place visitors talk to, which sends each request to the right room"),
           ("a map legend", "a few symbols explained once make the whole map readable"),
           ("a conductor's score", "every part is written out, and one person keeps them in time"),
           ("a workbench", "the pieces are laid out where the work happens")),
    "zh": (("航海日志", "每件事发生前都先按顺序记下来"),
           ("菜谱卡片", "固定的步骤，每次都做出同样的菜"),
           ("邮件分拣室", "邮件以任意顺序到达，按目的地分好再送出"),
           ("书签", "记住你读到哪里，下次接着读"),
           ("前台", "访客只和这一处打交道，由它把每件事转到对的房间"),
           ("地图图例", "几个符号解释一次，整张地图就都能读懂"),
           ("乐队总谱", "每个声部都写在上面，由一个人掌握节拍"),
           ("工作台", "零件摆在干活的地方")),
}


def _words(text: str) -> list[str]:
    """Lower-case words of identifiers and prose: `ServeHTTP` → serve, http; `url_for` → url, for."""
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", text)
    return [w for w in re.split(r"[^A-Za-z]+", text.lower()) if len(w) > 1]


def detect(names: list[str], paths: list[str], doc: str) -> list[tuple[float, Role]]:
    """Roles that fit, best first, with a score: paths weigh most, then names, then the doc."""
    bag: dict[str, float] = {}
    for p in paths:
        for w in _words(p.rsplit(".", 1)[0]):
            bag[w] = bag.get(w, 0) + 3.0
    for i, n in enumerate(names):
        for w in _words(n):
            bag[w] = bag.get(w, 0) + 2.0 / (1 + i * 0.3)
    for w in _words(doc)[:80]:
        bag[w] = bag.get(w, 0) + 0.5
    scored = []
    for role in ROLES:
        s = sum(bag.get(w, 0.0) for w in role.words)
        if s > 0:
            scored.append((s, role))
    scored.sort(key=lambda x: (-x[0], x[1].key))
    return scored


def pick_metaphor(roles: list[Role], taken: set[str], language: str, salt: str) -> tuple[str, str]:
    """The first free metaphor of the best role that has one, else a free general one."""
    lang = "zh" if language == "zh" else "en"
    for role in roles:
        for phrase, meaning in role.metaphors[lang]:
            if phrase.lower() not in taken:
                return phrase, meaning
    free = [m for m in GENERAL[lang] if m[0].lower() not in taken]
    pool = free or list(GENERAL[lang])
    import hashlib

    return pool[int(hashlib.sha256(salt.encode()).hexdigest()[:8], 16) % len(pool)]


def is_general(phrase: str) -> bool:
    """The phrase is one of the general metaphors (no role's own image)."""
    return any(phrase == m[0] for ms in GENERAL.values() for m in ms)


def all_phrases() -> set[str]:
    return {p.lower() for r in ROLES for lang in r.metaphors for p, _ in r.metaphors[lang]} | {
        p.lower() for lang in GENERAL for p, _ in GENERAL[lang]}
