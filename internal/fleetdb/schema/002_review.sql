-- stet fleet schema, version 2: what the review pages read without a scan
-- of every record: each session's counts, the paths changed, the refusal
-- kinds, and whether each change still stands as its host last saw it.
-- The derived tables are kept by triggers on the tables shippers add to
-- (as their owner: shippers cannot write them), and filled here from the
-- rows version 1 already holds.

CREATE TABLE stet.sessions (
	journal    bigint NOT NULL REFERENCES stet.journals (id),
	session    text NOT NULL,
	first_time timestamptz NOT NULL,
	last_time  timestamptz NOT NULL,
	receipts   bigint NOT NULL DEFAULT 0,
	refusals   bigint NOT NULL DEFAULT 0,
	turns      bigint NOT NULL DEFAULT 0,
	standing   bigint NOT NULL DEFAULT 0,
	PRIMARY KEY (journal, session)
);
CREATE INDEX sessions_last ON stet.sessions (last_time DESC, journal, session);

CREATE INDEX records_path ON stet.records (path) WHERE type = 'receipt';
CREATE INDEX records_from ON stet.records (from_path) WHERE type = 'receipt' AND from_path <> '';

CREATE TABLE stet.paths (
	journal bigint NOT NULL REFERENCES stet.journals (id),
	path    text NOT NULL,
	PRIMARY KEY (journal, path)
);

CREATE TABLE stet.kinds (
	kind  text PRIMARY KEY,
	count bigint NOT NULL
);

-- What a host saw of a change: appended each time the state it sees
-- differs from the last one it shipped.
CREATE TABLE stet.stands (
	journal bigint NOT NULL REFERENCES stet.journals (id),
	receipt text NOT NULL,
	session text NOT NULL,
	state   text NOT NULL,
	message text NOT NULL,
	seen    timestamptz NOT NULL,
	shipped timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (journal, receipt, seen)
);
-- The newest of them per change (derived).
CREATE TABLE stet.standing (
	journal bigint NOT NULL REFERENCES stet.journals (id),
	receipt text NOT NULL,
	state   text NOT NULL,
	message text NOT NULL,
	seen    timestamptz NOT NULL,
	PRIMARY KEY (journal, receipt)
);

-- The triggers' statements are planned each time they run (plan_cache_mode):
-- a plan cached while a table was empty would scan it whole as it grows.
CREATE FUNCTION stet.records_added() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, stet
	SET plan_cache_mode = force_custom_plan AS $$
BEGIN
	INSERT INTO stet.sessions AS s (journal, session, first_time, last_time, receipts, refusals, turns)
		SELECT journal, session, min(time), max(time),
			count(*) FILTER (WHERE type = 'receipt'), count(*) FILTER (WHERE type = 'refusal'), count(*) FILTER (WHERE type = 'turn')
		FROM added WHERE session <> '' AND NOT carried AND type IN ('receipt', 'refusal', 'turn', 'undo')
		GROUP BY journal, session
	ON CONFLICT (journal, session) DO UPDATE SET
		first_time = least(s.first_time, excluded.first_time), last_time = greatest(s.last_time, excluded.last_time),
		receipts = s.receipts + excluded.receipts, refusals = s.refusals + excluded.refusals, turns = s.turns + excluded.turns;
	INSERT INTO stet.paths (journal, path)
		SELECT DISTINCT journal, path FROM added WHERE type = 'receipt' AND path <> '' AND NOT carried
	ON CONFLICT DO NOTHING;
	INSERT INTO stet.kinds AS k (kind, count)
		SELECT kind, count(*) FROM added WHERE type = 'refusal' AND NOT carried GROUP BY kind
	ON CONFLICT (kind) DO UPDATE SET count = k.count + excluded.count;
	RETURN NULL;
END $$;
CREATE TRIGGER records_added AFTER INSERT ON stet.records REFERENCING NEW TABLE AS added
	FOR EACH STATEMENT EXECUTE FUNCTION stet.records_added();

CREATE FUNCTION stet.stands_added() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, stet
	SET plan_cache_mode = force_custom_plan AS $$
BEGIN
	-- The newest sighting of each change in this statement replaces the
	-- stored one unless that one is newer; each session's count of changes
	-- that stand moves by what changed. One statement, whatever the rows.
	WITH n AS (
		SELECT DISTINCT ON (journal, receipt) journal, receipt, session, state, message, seen FROM added ORDER BY journal, receipt, seen DESC
	), o AS (
		SELECT n.*, s.state AS old_state, s.seen AS old_seen FROM n LEFT JOIN stet.standing s USING (journal, receipt)
		WHERE s.seen IS NULL OR s.seen <= n.seen
	), up AS (
		INSERT INTO stet.standing AS s (journal, receipt, state, message, seen) SELECT journal, receipt, state, message, seen FROM o
		ON CONFLICT (journal, receipt) DO UPDATE SET state = excluded.state, message = excluded.message, seen = excluded.seen
		RETURNING journal
	)
	UPDATE stet.sessions ss SET standing = ss.standing + d.delta
	FROM (SELECT journal, session, sum((state = 'stands')::int - (coalesce(old_state, '') = 'stands')::int) AS delta
		FROM o GROUP BY journal, session) d
	WHERE ss.journal = d.journal AND ss.session = d.session AND d.delta <> 0 AND (SELECT count(*) FROM up) >= 0;
	RETURN NULL;
END $$;
CREATE TRIGGER stands_added AFTER INSERT ON stet.stands REFERENCING NEW TABLE AS added
	FOR EACH STATEMENT EXECUTE FUNCTION stet.stands_added();
CREATE TRIGGER stands_append_only BEFORE UPDATE OR DELETE ON stet.stands FOR EACH ROW EXECUTE FUNCTION stet.append_only();
CREATE TRIGGER stands_no_truncate BEFORE TRUNCATE ON stet.stands FOR EACH STATEMENT EXECUTE FUNCTION stet.append_only();

-- Fill the derived tables from what version 1 holds.
INSERT INTO stet.sessions (journal, session, first_time, last_time, receipts, refusals, turns)
	SELECT journal, session, min(time), max(time),
		count(*) FILTER (WHERE type = 'receipt'), count(*) FILTER (WHERE type = 'refusal'), count(*) FILTER (WHERE type = 'turn')
	FROM stet.records WHERE session <> '' AND NOT carried AND type IN ('receipt', 'refusal', 'turn', 'undo')
	GROUP BY journal, session;
INSERT INTO stet.paths (journal, path)
	SELECT DISTINCT journal, path FROM stet.records WHERE type = 'receipt' AND path <> '' AND NOT carried;
INSERT INTO stet.kinds (kind, count)
	SELECT kind, count(*) FROM stet.records WHERE type = 'refusal' AND NOT carried GROUP BY kind;

GRANT SELECT, INSERT ON stet.stands TO stet_ship;
GRANT SELECT ON stet.stands, stet.standing, stet.sessions, stet.paths, stet.kinds TO stet_read;
ALTER TABLE stet.stands ENABLE ROW LEVEL SECURITY;
CREATE POLICY ship_own ON stet.stands FOR INSERT TO stet_ship
	WITH CHECK (EXISTS (SELECT 1 FROM stet.journals j WHERE j.id = journal AND j.shipper = current_user));
CREATE POLICY ship_see ON stet.stands FOR SELECT TO stet_ship
	USING (EXISTS (SELECT 1 FROM stet.journals j WHERE j.id = journal AND j.shipper = current_user));
CREATE POLICY read_all ON stet.stands FOR SELECT TO stet_read USING (true);
