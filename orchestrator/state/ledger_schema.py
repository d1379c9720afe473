"""The ledger's schema: named, append-only migrations (state/ledger.py applies them in order)."""

from __future__ import annotations

MIGRATIONS: list[tuple[str, str]] = [
    (
        "001_initial",
        """
        CREATE TABLE events (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            ts TEXT NOT NULL,
            run TEXT,
            type TEXT NOT NULL,
            chapter TEXT,
            step TEXT,
            detail TEXT
        );
        CREATE INDEX events_chapter ON events(chapter, step);
        CREATE TABLE todos (
            chapter TEXT NOT NULL,
            step TEXT NOT NULL,
            status TEXT NOT NULL,
            reason TEXT,
            updated TEXT NOT NULL,
            PRIMARY KEY (chapter, step)
        );
        CREATE TABLE todo_deps (
            chapter TEXT NOT NULL,
            step TEXT NOT NULL,
            dep_chapter TEXT NOT NULL,
            dep_step TEXT NOT NULL,
            PRIMARY KEY (chapter, step, dep_chapter, dep_step)
        );
        CREATE TABLE llm_calls (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            ts TEXT NOT NULL,
            run TEXT,
            role TEXT,
            chapter TEXT,
            step TEXT,
            provider TEXT,
            model TEXT,
            input_tokens INTEGER,
            output_tokens INTEGER,
            cache_creation_tokens INTEGER,
            cache_read_tokens INTEGER,
            cost_usd REAL,
            latency_ms INTEGER,
            stop_reason TEXT,
            request_id TEXT,
            error TEXT
        );
        CREATE TABLE file_hashes (
            path TEXT PRIMARY KEY,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            hash TEXT NOT NULL
        );
        """,
    ),
    (
        "002_meta",
        """
        CREATE TABLE meta (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        """,
    ),
    (
        # A call is logged when it starts (status 'started') and updated when it ends, so a kill
        # mid-call leaves a row `book cost` counts; stop reason + text hash let a resume commit a
        # .partial whose call ended normally without paying for it again.
        "003_llm_calls_started_and_text_hash",
        """
        ALTER TABLE llm_calls ADD COLUMN call_id TEXT;
        ALTER TABLE llm_calls ADD COLUMN status TEXT;
        ALTER TABLE llm_calls ADD COLUMN attempt INTEGER;
        ALTER TABLE llm_calls ADD COLUMN text_hash TEXT;
        CREATE UNIQUE INDEX llm_calls_call_id ON llm_calls(call_id) WHERE call_id IS NOT NULL
        """,
    ),
    # A call made through the Message Batches API (billed at half the rate): `book cost` splits on it.
    ("004_llm_calls_batch", "ALTER TABLE llm_calls ADD COLUMN batch INTEGER NOT NULL DEFAULT 0"),
    # Of output_tokens, those spent thinking (usage.output_tokens_details.thinking_tokens): `book cost` shows them.
    ("005_llm_calls_thinking", "ALTER TABLE llm_calls ADD COLUMN thinking_tokens INTEGER"),
    # A call's worst case, known before it is sent: what a call cut off before its end is counted at.
    ("006_llm_calls_worst", "ALTER TABLE llm_calls ADD COLUMN worst_usd REAL"),
]
