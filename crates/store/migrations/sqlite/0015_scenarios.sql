-- The scenario rules in force (`signet scenarios load`), shared by every node: the file as it
-- was loaded (empty once cleared) and a version that every change moves on, which the nodes
-- poll; and each rule, in the file's order, with whether it is switched on and how many times
-- it matched since the file was loaded (what `times` and `probability` count on).
CREATE TABLE scenarios (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    text    TEXT    NOT NULL,
    version BIGINT  NOT NULL,
    changed BIGINT  NOT NULL
);

CREATE TABLE scenario_rules (
    position INTEGER PRIMARY KEY,
    name     TEXT    NOT NULL UNIQUE,
    enabled  BOOLEAN NOT NULL,
    hits     BIGINT  NOT NULL
);
