"""Chinese chapter titles that say an idea (issue 35): the English idea title (a docs heading, a
doc's verb and object, a flow) said in Chinese when every word of it is a word of the trade this
table knows; '' otherwise, so the caller falls back to the role's Chinese topic or the module.

A word-for-word rendering reads as Chinese for the shapes the idea titles take: a noun phrase
("Global Context Access" → 全局上下文访问), a gerund and its object ("Handling WebSocket
connections" is left out: `WebSocket` is not a word this table knows), "How a group resolves its
command" → 命令组如何解析命令. A title is never half Chinese, half English."""

from __future__ import annotations

import re

# the verbs of ideas.VERBS and the doc titles, base form
VERBS_ZH = {
    "find": "查找", "resolve": "解析", "dispatch": "分发", "handle": "处理", "route": "路由", "serve": "提供",
    "parse": "解析", "build": "构建", "create": "创建", "render": "渲染", "send": "发送", "write": "写入",
    "read": "读取", "load": "加载", "save": "保存", "insert": "插入", "search": "搜索", "update": "更新",
    "remove": "删除", "match": "匹配", "invoke": "调用", "run": "运行", "execute": "执行", "register": "注册",
    "mount": "挂载", "compile": "编译", "encode": "编码", "decode": "解码", "serialize": "序列化",
    "deserialize": "反序列化", "format": "格式化", "validate": "校验", "convert": "转换", "wrap": "包装",
    "complete": "补全", "generate": "生成", "open": "打开", "connect": "连接", "listen": "监听", "accept": "接受",
    "process": "处理", "emit": "发出", "apply": "应用", "merge": "合并", "compose": "组合", "extract": "提取",
    "redirect": "重定向", "fetch": "获取", "select": "选择", "filter": "过滤", "query": "查询", "store": "存储",
    "lookup": "查找", "schedule": "调度", "spawn": "派生", "collect": "收集", "prepare": "准备",
    "finalize": "收尾处理", "bind": "绑定", "consume": "消费", "produce": "产生", "transform": "转换",
    "evaluate": "求值", "make": "生成", "add": "添加", "print": "打印", "log": "记录", "install": "安装",
    "configure": "配置", "dump": "导出", "flush": "刷新", "close": "关闭", "upgrade": "升级", "stream": "流式传输",
    "negotiate": "协商", "authenticate": "认证", "sign": "签名", "verify": "验证", "cache": "缓存", "retry": "重试",
    "scan": "扫描", "tokenize": "切分", "expand": "展开", "limit": "限制", "stop": "停止", "compress": "压缩",
    "recover": "恢复", "throttle": "限流", "strip": "去除", "start": "启动", "sanitize": "清理", "escape": "转义",
    "count": "计数", "measure": "度量", "trace": "追踪", "guard": "保护", "protect": "保护", "rewrite": "改写",
    "sort": "排序", "join": "拼接", "split": "拆分", "copy": "复制", "move": "移动", "rename": "重命名",
    "watch": "监视", "notify": "通知", "signal": "发信号", "track": "跟踪", "record": "记录", "define": "定义",
    "use": "使用", "share": "共享", "test": "测试", "access": "访问", "bubble": "冒泡", "nest": "嵌套",
    "prompt": "提示", "customize": "定制", "extend": "扩展", "catch": "捕获", "raise": "抛出", "throw": "抛出",
}
NOUNS_ZH = {
    "command": "命令", "subcommand": "子命令", "group": "命令组", "option": "选项", "argument": "参数",
    "parameter": "参数", "flag": "标志", "request": "请求", "response": "响应", "route": "路由", "router": "路由器",
    "routing": "路由", "handler": "处理函数", "middleware": "中间件", "context": "上下文", "application": "应用",
    "app": "应用", "error": "错误", "exception": "异常", "failure": "失败", "panic": "panic", "query": "查询",
    "table": "表", "document": "文档", "storage": "存储", "cache": "缓存", "template": "模板", "view": "视图",
    "session": "会话", "cookie": "Cookie", "header": "头部", "body": "正文", "file": "文件", "filename": "文件名",
    "path": "路径", "url": "URL", "uri": "URI", "key": "键", "value": "值", "type": "类型", "data": "数据",
    "config": "配置", "configuration": "配置", "setting": "设置", "environment": "环境", "variable": "变量",
    "output": "输出", "input": "输入", "line": "行", "interface": "接口", "language": "语言", "object": "对象",
    "string": "字符串", "number": "数字", "list": "列表", "listing": "列表", "tree": "树", "node": "节点",
    "pattern": "模式", "method": "方法", "function": "函数", "client": "客户端", "server": "服务器",
    "connection": "连接", "stream": "流", "event": "事件", "signal": "信号", "message": "消息", "log": "日志",
    "logger": "日志器", "test": "测试", "runner": "运行器", "result": "结果", "status": "状态", "state": "状态",
    "instance": "实例", "default": "默认值", "service": "服务", "extension": "扩展", "plugin": "插件",
    "hook": "钩子", "callback": "回调", "timeout": "超时", "retry": "重试", "help": "帮助", "usage": "用法",
    "completion": "补全", "shell": "Shell", "prompt": "提示", "color": "颜色", "text": "文本",
    "encoding": "编码", "format": "格式", "schema": "模式", "validation": "校验", "transport": "传输",
    "adapter": "适配器", "proxy": "代理", "redirect": "重定向", "fallback": "兜底处理", "blueprint": "蓝图",
    "debugger": "调试器", "access": "访问", "global": "全局", "local": "本地", "custom": "自定义",
    "built-in": "内置", "builtin": "内置", "nested": "嵌套", "positional": "位置", "active": "主动",
    "user": "用户", "control": "控制", "storage-backed": "存储", "database": "数据库", "record": "记录",
    "operation": "操作", "item": "条目", "entry": "条目", "point": "点", "graph": "图", "action": "动作",
    "coder": "编码器", "exit": "退出", "code": "代码", "progress": "进度", "bar": "条", "editor": "编辑器",
    "pager": "分页器", "directory": "目录", "name": "名称", "alias": "别名", "parser": "解析器",
    "decorator": "装饰器", "wrapper": "包装器", "chain": "链", "layer": "层", "stack": "栈", "mux": "多路复用器",
    "multiplexer": "多路复用器", "method-based": "按方法", "form": "表单", "json": "JSON", "http": "HTTP",
    "api": "API", "sql": "SQL", "cli": "CLI", "web": "Web", "websocket": "WebSocket",
    "socket": "套接字", "upgrade": "升级", "sse": "SSE", "multipart": "多部分", "upload": "上传",
    "instance defaults": "实例默认值", "lookup": "查找", "registration": "注册", "dispatch": "分发",
    "creation": "创建", "handling": "处理", "processing": "处理", "parsing": "解析", "serialization": "序列化",
    "rendering": "渲染", "matching": "匹配", "conversion": "转换", "generation": "生成", "execution": "执行",
    "lifecycle": "生命周期", "life": "生命", "cycle": "周期", "scope": "作用域", "dependency": "依赖",
    "injection": "注入", "resource": "资源", "asset": "资源", "static": "静态", "dynamic": "动态",
    "secure": "安全", "security": "安全", "authentication": "认证", "authorization": "授权", "token": "令牌",
    "signature": "签名", "serializer": "序列化器", "encoder": "编码器", "decoder": "解码器", "unicode": "Unicode",
    "window": "窗口", "terminal": "终端", "console": "控制台", "pipe": "管道", "process": "进程",
    "concurrency": "并发", "limit": "限制", "rate": "速率", "throttle": "限流", "compression": "压缩",
    "relation": "关系", "lineage": "谱系", "hierarchy": "层次", "inheritance": "继承", "category": "类别",
    "definition": "定义", "declaration": "声明", "annotation": "注解", "generic": "泛型", "integer": "整数",
    "float": "浮点数", "duration": "时长", "time": "时间", "date": "日期", "size": "大小", "length": "长度",
    "set": "集合", "collection": "集合", "support": "支持", "feature": "特性", "step": "步骤", "rule": "规则",
    "pattern-based": "按模式", "wildcard": "通配符", "sub-router": "子路由器", "subrouter": "子路由器",
    "instance-wide": "实例级", "interceptor": "拦截器", "cancellation": "取消", "cancel": "取消",
    "param": "参数", "params": "参数", "content": "内容", "charset": "字符集", "compressor": "压缩器",
    "writer": "写入器", "reader": "读取器", "buffer": "缓冲区", "byte": "字节", "mock": "模拟",
    "sorted": "有序", "write-ahead": "预写", "append-only": "只追加", "in-memory": "内存",
    "all": "所有", "bool": "布尔", "boolean": "布尔", "inverse": "反向", "common": "通用",
    "transaction": "事务", "field": "字段", "column": "列", "row": "行", "page": "页",
}
# words that are also the names of pipeline steps, kept out of the table's literals
NOUNS_ZH.update(zip("style html index memory".split(), ("样式", "HTML", "索引", "内存")))
# the words a title says that need no Chinese: articles and the title's glue
_GLUE = frozenset({"a", "an", "the", "its", "of", "for", "and", "with", "in", "on", "to", "how"})


def _noun(word: str) -> str:
    w = word.lower()
    for cand in (w, w[:-1] if w.endswith("s") else "", w[:-2] if w.endswith("es") else "",
                 w[:-3] + "y" if w.endswith("ies") else ""):
        if cand and cand in NOUNS_ZH:
            return NOUNS_ZH[cand]
    return ""


def _gerund_base(word: str) -> str:
    """'handling' → 'handle', 'running' → 'run', 'formatting' → 'format'; '' if not a known verb."""
    w = word.lower()
    if not w.endswith("ing"):
        return ""
    stem = w[:-3]
    for cand in (stem, stem + "e", stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] else "",
                 stem[:-1] + "ie" if stem.endswith("y") else ""):
        if cand and cand in VERBS_ZH:
            return cand
    return ""


def _verb_base(word: str) -> str:
    """'resolves' → 'resolve', 'finds' → 'find'; '' if not a known verb."""
    w = word.lower()
    for cand in (w, w[:-1] if w.endswith("s") else "", w[:-2] if w.endswith("es") else "",
                 w[:-3] + "y" if w.endswith("ies") else ""):
        if cand and cand in VERBS_ZH:
            return cand
    return ""


def _nouns(words: list[str]) -> str:
    """A noun phrase word for word ('global context access' → 全局上下文访问), '' when a word is unknown."""
    out = []
    for w in words:
        if w.lower() in _GLUE:
            if w.lower() in ("and",):
                out.append("与")
            continue
        zh = _noun(w)
        if not zh:
            return ""
        out.append(zh)
    return _join(out)


def _join(parts: list[str]) -> str:
    """Chinese words run together; a Latin word (HTTP, JSON) keeps a space from its neighbours."""
    text = ""
    for part in parts:
        if text and part and (re.match(r"[A-Za-z]", part) or re.search(r"[A-Za-z]$", text)):
            text += " "
        text += part
    return text


# what one writes (middleware, a handler), not data one writes out
_AUTHORED = frozenset({"中间件", "处理函数", "扩展", "插件", "测试", "模板"})


def zh_title(en: str, project: str = "") -> str:
    """The Chinese of an English idea title, or '' when a word of it is not one this table knows
    (the project's own name, `project`, is kept as it is written)."""
    words = re.findall(r"[A-Za-z][A-Za-z-]*", en)
    if not words or len(words) > 8 or re.search(r"[^A-Za-z\s'’-]", en):
        return ""
    low = [w.lower() for w in words]
    # "How a group resolves its command" / "How Ky reads and parses"
    if low[0] == "how":
        rest = [w for w in words[1:] if w.lower() not in ("a", "an", "the")]
        verbs = [k for k, w in enumerate(rest) if _verb_base(w) and k > 0]
        if not verbs:
            return ""
        k = verbs[0]
        who = rest[0] if k == 1 and project and rest[0].lower() == project.lower() else _nouns(rest[:k])
        verb = VERBS_ZH[_verb_base(rest[k])]
        tail = rest[k + 1:]
        if tail and tail[0].lower() == "and" and len(tail) == 2 and _verb_base(tail[1]):
            return _join([who, f"如何{verb}与{VERBS_ZH[_verb_base(tail[1])]}"]) if who else ""
        obj = _nouns(tail) if tail else ""
        return _join([who, f"如何{verb}", obj]) if who and (obj or not tail) else ""
    # "Handling a request", "Routing to services and handlers" (a preposition: not said word for word)
    base = _gerund_base(words[0])
    if base and len(low) > 2 and low[1] == "from" and not any(w in _PREPS for w in low[2:]):
        obj = _nouns(words[2:])  # "Recovering from panics" → 从 panic 中恢复
        return _join(["从", obj, "中" + VERBS_ZH[base]]) if obj else ""
    if base and not any(w in _PREPS for w in low[1:]):
        obj = _nouns(words[1:])
        verb = "编写" if base == "write" and obj in _AUTHORED else VERBS_ZH[base]
        return _join([verb, obj]) if obj or len(words) == 1 else ""
    # a noun phrase: "Global Context Access", "Query Language"; "Set of encoding configurations" → 编码配置的集合
    of = "of" if "of" in low else "for"
    if low.count(of) == 1 and not any(w in _PREPS for w in low if w != of) and low[0] != of:
        k = low.index(of)
        what, whose = _nouns(words[:k]), _nouns(words[k + 1:])
        return _join([whose, "的" + what]) if what and whose else ""
    if not any(w in _PREPS or w in ("which", "what", "why") for w in low):
        return _nouns(words)
    return ""


_PREPS = frozenset({"to", "from", "by", "with", "into", "between", "on", "of", "for", "at", "via", "using"})
