import Database from 'better-sqlite3';

/**
 * Takes an exclusive lock on `file` (made if missing): an exclusive SQLite transaction,
 * that is a POSIX lock the operating system drops with the process however it ends
 * (kill -9, a crash, a zombie not yet reaped): no pid to check, nothing stale to clean
 * up. The file stays; only the lock on it comes and goes. Returns the function releasing
 * it, or null when another process holds it. POSIX locks do not conflict within one
 * process: callers keep their own record of what this process holds.
 */
export function tryFileLock(file: string): (() => void) | null {
  const db = new Database(file, { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    // The file holds no data, only the lock: no journal to write and sync to disk.
    db.pragma('journal_mode = MEMORY');
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') return null;
    throw err;
  }
  return () => db.close();
}

/**
 * Whether another process holds the lock on `file` now (false when there is no such
 * file). Only asks: the lock is given back at once when it could be taken. This process's
 * own locks do not show (POSIX locks do not conflict within one process).
 */
export function fileLockHeld(file: string): boolean {
  let db: Database.Database;
  try {
    db = new Database(file, { timeout: 0, fileMustExist: true });
  } catch {
    return false;
  }
  try {
    db.exec('BEGIN EXCLUSIVE');
    db.exec('ROLLBACK');
    return false;
  } catch {
    return true;
  } finally {
    db.close();
  }
}
