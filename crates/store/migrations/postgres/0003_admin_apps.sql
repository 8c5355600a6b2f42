-- Apps allowed to drive the market simulator (/admin/market/...).
ALTER TABLE apps ADD COLUMN admin BOOLEAN NOT NULL DEFAULT FALSE;
