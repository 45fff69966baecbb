-- 0007: a placeholder. Migration numbers run without gaps, and another branch claims 0007;
-- this one (issue 17 §1) uses 0008. When that branch's 0007 is merged, this file is
-- deleted (its table is empty and nothing reads it).

CREATE TABLE reserved_0007 (note TEXT);
