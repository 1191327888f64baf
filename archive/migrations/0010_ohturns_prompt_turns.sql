-- Turns for OpenHands conversations archived before the projection numbered them.
-- An OpenHands log names no turns: each prompt a person sent (a user message that
-- is not injected context, format.IsPrompt) starts the next one, and every event
-- from it on belongs to it until the next prompt (format.Event.NextTurn). Sessions
-- archived earlier have NULL turns everywhere; this numbers them by the same rule
-- from the messages rows the projection wrote (one per prompt event, role 'user',
-- kind 'human'), so they read as if imported now. Only derived columns change:
-- the blocks and kept source files are not touched. A session whose events carry
-- any turn already is left alone, so the migration never numbers one twice.
--
CREATE TEMP TABLE oh_sessions AS
SELECT pk FROM sessions s
WHERE s.format = 'openhands'
  AND NOT EXISTS (SELECT 1 FROM events x WHERE x.session_pk = s.pk AND x.turn IS NOT NULL);

-- oh_turns: the turn of each event of those sessions from its first prompt on
-- (events before it, the system prompt, stay outside any turn).
CREATE TEMP TABLE oh_turns (
    session_pk INTEGER NOT NULL,
    seq        INTEGER NOT NULL,
    turn       INTEGER NOT NULL,
    PRIMARY KEY (session_pk, seq)
) WITHOUT ROWID;

INSERT INTO oh_turns (session_pk, seq, turn)
SELECT session_pk, seq, turn FROM (
    SELECT e.session_pk, e.seq,
           SUM(m.seq IS NOT NULL) OVER (PARTITION BY e.session_pk ORDER BY e.seq ROWS UNBOUNDED PRECEDING) AS turn
    FROM oh_sessions s
    JOIN events e ON e.session_pk = s.pk
    LEFT JOIN messages m ON m.session_pk = e.session_pk AND m.seq = e.seq
                        AND m.role = 'user' AND m.kind <> 'injected'
)
WHERE turn > 0;

-- Each derived row takes the turn of the event the projection placed it at.
UPDATE events SET turn = t.turn
FROM oh_turns t WHERE events.session_pk = t.session_pk AND events.seq = t.seq;

UPDATE messages SET turn = t.turn
FROM oh_turns t WHERE messages.session_pk = t.session_pk AND messages.seq = t.seq;

UPDATE usage SET turn = t.turn
FROM oh_turns t WHERE usage.session_pk = t.session_pk AND usage.seq = t.seq;

-- A call's row is placed at its call (or, its call not archived, at its result).
UPDATE tool_calls SET turn = t.turn
FROM oh_turns t WHERE tool_calls.session_pk = t.session_pk AND tool_calls.call_seq = t.seq;

-- A decision whose request is not archived has no turn, as on import.
UPDATE approvals SET turn = t.turn
FROM oh_turns t WHERE approvals.session_pk = t.session_pk AND approvals.asked_seq = t.seq;

UPDATE compactions SET turn = t.turn
FROM oh_turns t WHERE compactions.session_pk = t.session_pk AND compactions.start_seq = t.seq;

-- The session's turn count, and the projection state an append goes on from: the
-- turns started, and the last one still open (an OpenHands turn never ends). The
-- revision moves so the search index re-derives the session's documents, which
-- carry the turn.
UPDATE sessions SET turn_count = n.turns,
    state = json_set(COALESCE(state, '{}'), '$.turns', n.turns, '$.openTurn', n.turns),
    revision = revision + 1
FROM (SELECT session_pk, MAX(turn) AS turns FROM oh_turns GROUP BY session_pk) n
WHERE sessions.pk = n.session_pk;

DROP TABLE oh_turns;
DROP TABLE oh_sessions;
