/** The answer to a MySQL server that sends more at once than the import accepts (a packet over its bound). */
export const TOO_MUCH_AT_ONCE = {
  status: 502,
  body: {
    success: false,
    message: 'Could not read from the MySQL server: it sent more data at once than the import accepts',
  },
} as const;
