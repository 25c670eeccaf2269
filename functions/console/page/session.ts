/**
 * Where the admin key lives: this tab's sessionStorage and nowhere else (never a cookie,
 * localStorage or the URL), so closing the tab forgets it.
 */
const STORAGE_ITEM = 'channel-console.admin-key';

export const adminKeyStore = {
  read: (): string | null => sessionStorage.getItem(STORAGE_ITEM),
  write: (key: string): void => sessionStorage.setItem(STORAGE_ITEM, key),
  forget: (): void => sessionStorage.removeItem(STORAGE_ITEM),
};
