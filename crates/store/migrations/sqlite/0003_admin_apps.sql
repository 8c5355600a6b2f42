-- Apps allowed to drive the market simulator (/admin/market/...).
ALTER TABLE apps ADD COLUMN admin INTEGER NOT NULL DEFAULT 0;
