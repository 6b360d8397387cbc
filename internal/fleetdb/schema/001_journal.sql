-- stet fleet schema, version 1: the shipped journals, their records (one
-- hash chain per journal and generation) and the blobs they name.
-- Applied by stet (stet sync --migrate), never by hand.

CREATE SCHEMA IF NOT EXISTS stet;

-- The group roles: stet_ship may add records, stet_read may read all.
-- Neither may change or remove a row.
DO $$ BEGIN CREATE ROLE stet_ship NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
DO $$ BEGIN CREATE ROLE stet_read NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
GRANT USAGE ON SCHEMA stet TO stet_ship, stet_read;
GRANT SELECT ON stet.schema_version TO stet_ship, stet_read;

-- One journal: a state directory on a host, shipped by one role.
CREATE TABLE stet.journals (
	id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	shipper   name NOT NULL DEFAULT current_user,
	host      text NOT NULL,
	state_dir text NOT NULL,
	workspace text NOT NULL,
	roots     text[] NOT NULL,
	created   timestamptz NOT NULL DEFAULT now(),
	UNIQUE (shipper, host, state_dir)
);

-- One line of a journal. line holds its exact bytes; NULL when the line
-- is about a deny-read file (its bytes stay on the host; hash is still
-- pinned by the next line's prev). The other columns are read from the
-- line by the shipper, and checked against it by stet verify.
CREATE TABLE stet.records (
	journal    bigint NOT NULL REFERENCES stet.journals (id),
	generation bigint NOT NULL,
	seq        bigint NOT NULL CHECK (seq > 0),
	prev       text NOT NULL,
	hash       text NOT NULL,
	line       bytea,
	time       timestamptz NOT NULL,
	type       text NOT NULL,
	session    text NOT NULL DEFAULT '',
	path       text NOT NULL DEFAULT '',
	from_path  text NOT NULL DEFAULT '',
	receipt    text NOT NULL DEFAULT '', -- a receipt's id; for an undo record, the receipt taken back
	by_receipt text NOT NULL DEFAULT '', -- an undo record: the undo receipt; a receipt: the receipt it undoes
	tool       text NOT NULL DEFAULT '',
	kind       text NOT NULL DEFAULT '', -- a refusal's kind
	verified   boolean NOT NULL DEFAULT false,
	carried    boolean NOT NULL DEFAULT false, -- carried over by a compaction from a generation also shipped
	shipped    timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (journal, generation, seq),
	CHECK (line IS NULL OR hash = 'sha256:' || encode(sha256(line), 'hex'))
);
CREATE INDEX records_session ON stet.records (journal, session, generation, seq);
CREATE INDEX records_receipt ON stet.records (receipt) WHERE receipt <> '';

-- Blobs, deduplicated by content hash across every journal.
CREATE TABLE stet.blobs (
	hash    text PRIMARY KEY,
	size    bigint NOT NULL,
	data    bytea NOT NULL,
	shipped timestamptz NOT NULL DEFAULT now(),
	CHECK (hash = 'sha256:' || encode(sha256(data), 'hex') AND size = length(data))
);
ALTER TABLE stet.blobs ALTER COLUMN data SET STORAGE EXTERNAL;

-- A line joins its chain only after the line before it (a gap or a fork
-- is refused at the door, whoever inserts it).
-- It runs as the owner, so that it sees the chain whoever inserts (row-level
-- security then decides whether that role may add to it).
-- Its lookup is planned for each row (a plan cached while the table was
-- empty would scan it whole as it grows).
CREATE FUNCTION stet.chain_check() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, stet
	SET plan_cache_mode = force_custom_plan AS $$
DECLARE
	before text;
BEGIN
	IF NEW.seq = 1 THEN
		IF NEW.prev <> '' THEN
			RAISE EXCEPTION 'stet: journal % generation % seq 1 names a line before it (a fork)', NEW.journal, NEW.generation
				USING ERRCODE = 'ST001', DETAIL = NEW.seq::text;
		END IF;
		RETURN NEW;
	END IF;
	SELECT r.hash INTO before FROM stet.records r
		WHERE r.journal = NEW.journal AND r.generation = NEW.generation AND r.seq = NEW.seq - 1;
	IF before IS NULL THEN
		RAISE EXCEPTION 'stet: journal % generation % seq %: seq % is not in the database (a gap)', NEW.journal, NEW.generation, NEW.seq, NEW.seq - 1
			USING ERRCODE = 'ST002', DETAIL = NEW.seq::text;
	END IF;
	IF before <> NEW.prev THEN
		RAISE EXCEPTION 'stet: journal % generation % seq % does not chain to seq % (a fork)', NEW.journal, NEW.generation, NEW.seq, NEW.seq - 1
			USING ERRCODE = 'ST001', DETAIL = NEW.seq::text;
	END IF;
	RETURN NEW;
END $$;
CREATE TRIGGER records_chain BEFORE INSERT ON stet.records FOR EACH ROW EXECUTE FUNCTION stet.chain_check();

-- Append-only, for every role, the tables' owner included.
CREATE FUNCTION stet.append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'stet: % is append-only: rows are never changed or removed', TG_TABLE_NAME;
END $$;
CREATE TRIGGER journals_append_only BEFORE UPDATE OR DELETE ON stet.journals FOR EACH ROW EXECUTE FUNCTION stet.append_only();
CREATE TRIGGER records_append_only BEFORE UPDATE OR DELETE ON stet.records FOR EACH ROW EXECUTE FUNCTION stet.append_only();
CREATE TRIGGER blobs_append_only BEFORE UPDATE OR DELETE ON stet.blobs FOR EACH ROW EXECUTE FUNCTION stet.append_only();
CREATE TRIGGER journals_no_truncate BEFORE TRUNCATE ON stet.journals FOR EACH STATEMENT EXECUTE FUNCTION stet.append_only();
CREATE TRIGGER records_no_truncate BEFORE TRUNCATE ON stet.records FOR EACH STATEMENT EXECUTE FUNCTION stet.append_only();
CREATE TRIGGER blobs_no_truncate BEFORE TRUNCATE ON stet.blobs FOR EACH STATEMENT EXECUTE FUNCTION stet.append_only();

-- Who may do what: a shipper adds to and reads its own journals only.
GRANT SELECT, INSERT ON stet.journals, stet.records TO stet_ship;
GRANT INSERT ON stet.blobs TO stet_ship;
GRANT SELECT (hash, size) ON stet.blobs TO stet_ship;
GRANT SELECT ON stet.journals, stet.records, stet.blobs TO stet_read;

ALTER TABLE stet.journals ENABLE ROW LEVEL SECURITY;
ALTER TABLE stet.records ENABLE ROW LEVEL SECURITY;
CREATE POLICY ship_own ON stet.journals FOR INSERT TO stet_ship WITH CHECK (shipper = current_user);
CREATE POLICY ship_see ON stet.journals FOR SELECT TO stet_ship USING (shipper = current_user);
CREATE POLICY read_all ON stet.journals FOR SELECT TO stet_read USING (true);
CREATE POLICY ship_own ON stet.records FOR INSERT TO stet_ship
	WITH CHECK (EXISTS (SELECT 1 FROM stet.journals j WHERE j.id = journal AND j.shipper = current_user));
CREATE POLICY ship_see ON stet.records FOR SELECT TO stet_ship
	USING (EXISTS (SELECT 1 FROM stet.journals j WHERE j.id = journal AND j.shipper = current_user));
CREATE POLICY read_all ON stet.records FOR SELECT TO stet_read USING (true);
