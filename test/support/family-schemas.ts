import type { FamilyKind } from '#functions/import-legacygw/families/family';

/*
 * The `channels` columns of every schema version of each family, as GORM's AutoMigrate leaves them (snake_case
 * field names of model/channel.go's Channel struct at the commit named; AutoMigrate only adds columns, so an
 * upgraded table has its newest version's set). test/unit/family-fingerprints.test.ts runs every family's `match`
 * over each: exactly the family in `readAs` must match. Versions whose columns did not change are left out.
 */

export interface SchemaVersion {
  /** Whose schema this is. */
  readonly family: FamilyKind;
  /** The family the import reads it as (differs where a version carries none of its family's own columns). */
  readonly readAs: FamilyKind;
  /** repository@commit (date) of model/channel.go. */
  readonly source: string;
  readonly note?: string;
  readonly columns: readonly string[];
}

/** A column list written as one line: the names separated by spaces. */
const words = (names: string): readonly string[] => names.split(' ');

export const SCHEMA_VERSIONS: readonly SchemaVersion[] = [
  {
    family: 'onehub',
    readAs: 'onehub',
    source: 'MartialBE/one-hub@fb24d024a7d339ee2eac8747830cbfe44f8a4d32 (2023-12-26)',
    columns: words(
      'id type key status name weight created_time test_time response_time base_url other balance balance_updated_time models group used_quota model_mapping priority proxy',
    ),
  },
  {
    family: 'onehub',
    readAs: 'onehub',
    source: 'MartialBE/one-hub@9c0a49b97ae4e6a84957dce4175800273d503ba9 (2023-12-29)',
    columns: words(
      'id type key status name weight created_time test_time response_time base_url other balance balance_updated_time models group used_quota model_mapping priority proxy test_model',
    ),
  },
  {
    family: 'onehub',
    readAs: 'onehub',
    source: 'MartialBE/one-hub@d8d880bf856be1659f669bb2f51883374ef79b16 (2024-03-08)',
    columns: words(
      'id type key status name weight created_time test_time response_time base_url other balance balance_updated_time models group used_quota model_mapping priority proxy test_model plugin',
    ),
  },
  {
    family: 'onehub',
    readAs: 'onehub',
    source: 'MartialBE/one-hub@2bc2dfca3991cdeb57999895af8c683694aa03b4 (2024-05-15)',
    columns: words(
      'id type key status name weight created_time test_time response_time base_url other balance balance_updated_time models group used_quota model_mapping priority proxy test_model only_chat plugin',
    ),
  },
  {
    family: 'onehub',
    readAs: 'onehub',
    source: 'MartialBE/one-hub@1425366371038aa57f831bd0bddeecc338f87475 (2024-06-20)',
    columns: words(
      'id type key status name weight created_time test_time response_time base_url other balance balance_updated_time models group tag used_quota model_mapping priority proxy test_model only_chat plugin',
    ),
  },
  {
    family: 'onehub',
    readAs: 'onehub',
    source: 'MartialBE/one-hub@e4096dd131489db570570eae96ca241b52138775 (2024-07-20)',
    columns: words(
      'id type key status name weight created_time test_time response_time base_url other balance balance_updated_time models group tag used_quota model_mapping priority proxy test_model only_chat pre_cost plugin',
    ),
  },
  {
    family: 'onehub',
    readAs: 'onehub',
    source: 'MartialBE/one-hub@436df1cc975ac91d9b5a0a1eff288a3480e4ded0 (2024-09-27)',
    columns: words(
      'id type key status name weight created_time test_time response_time base_url other balance balance_updated_time models group tag used_quota model_mapping model_headers priority proxy test_model only_chat pre_cost plugin',
    ),
  },
  {
    family: 'onehub',
    readAs: 'onehub',
    source: 'MartialBE/one-hub@b079fdd3f1adc749bcb5042311f378736e0d5cdd (2024-10-17)',
    columns: words(
      'id type key status name weight created_time test_time response_time base_url other balance balance_updated_time models group tag used_quota model_mapping model_headers priority proxy test_model only_chat pre_cost plugin deleted_at',
    ),
  },
  {
    family: 'onehub',
    readAs: 'onehub',
    source: 'MartialBE/one-hub@d0fd3b532abde39add66de90224ab856f3198045 (2025-04-17)',
    columns: words(
      'id type key status name weight created_time test_time response_time base_url other balance balance_updated_time models group tag used_quota model_mapping model_headers priority proxy test_model only_chat pre_cost disabled_stream plugin deleted_at',
    ),
  },
  {
    family: 'onehub',
    readAs: 'onehub',
    source: 'MartialBE/one-hub@3835baabbf7e4a8de7dda00eab486ce21b66dcd0 (2025-04-25)',
    columns: words(
      'id type key status name weight created_time test_time response_time base_url other balance balance_updated_time models group tag used_quota model_mapping model_headers custom_parameter priority proxy test_model only_chat pre_cost disabled_stream plugin deleted_at',
    ),
  },
  {
    family: 'onehub',
    readAs: 'onehub',
    source: 'MartialBE/one-hub@fc32e8c1319c4fd77f461c54289636b8a3679ff2 (2025-06-20)',
    columns: words(
      'id type key status name weight created_time test_time response_time base_url other balance balance_updated_time models group tag used_quota model_mapping model_headers custom_parameter priority proxy test_model only_chat pre_cost compatible_response disabled_stream plugin deleted_at',
    ),
  },
  {
    family: 'onehub',
    readAs: 'onehub',
    source: 'MartialBE/one-hub@e853a9c5f669cb548c2518faaac59e0fa82b247b (2026-01-17)',
    columns: words(
      'id type key status name weight created_time test_time response_time base_url other balance balance_updated_time models group tag used_quota model_mapping model_headers custom_parameter priority proxy test_model only_chat pre_cost compatible_response allow_extra_body disabled_stream plugin deleted_at',
    ),
  },
  {
    family: 'onehub',
    readAs: 'onehub',
    source: 'MartialBE/one-hub@e853a9c5f669cb548c2518faaac59e0fa82b247b (2026-01-17)',
    note: 'a One API v0.6+ database upgraded in place to One Hub keeps One API’s config and system_prompt',
    columns: words(
      'id type key status name weight created_time test_time response_time base_url other balance balance_updated_time models group tag used_quota model_mapping model_headers custom_parameter priority proxy test_model only_chat pre_cost compatible_response allow_extra_body disabled_stream plugin deleted_at config system_prompt',
    ),
  },
  {
    family: 'donehub',
    readAs: 'onehub',
    source: 'deanxv/done-hub@c3815f17e650edced6a997d612a3d7d2d8f65962 (2025-06-09)',
    note: 'no column of Done Hub’s own yet: the same columns as a One Hub table, read as One Hub',
    columns: words(
      'id type key status name weight created_time test_time response_time base_url other balance balance_updated_time models group tag used_quota model_mapping model_headers custom_parameter priority proxy test_model only_chat pre_cost disabled_stream plugin deleted_at',
    ),
  },
  {
    family: 'donehub',
    readAs: 'onehub',
    source: 'deanxv/done-hub@c1db47868a949d6be76394aa7a6992675f5c059e (2025-06-23)',
    note: 'no column of Done Hub’s own yet: the same columns as a One Hub table, read as One Hub',
    columns: words(
      'id type key status name weight created_time test_time response_time base_url other balance balance_updated_time models group tag used_quota model_mapping model_headers custom_parameter priority proxy test_model only_chat pre_cost compatible_response disabled_stream plugin deleted_at',
    ),
  },
  {
    family: 'donehub',
    readAs: 'onehub',
    source: 'deanxv/done-hub@da461d3b292134bda2baa7ddbce9b50ce8efabe0 (2026-05-17)',
    note: 'no column of Done Hub’s own yet: the same columns as a One Hub table, read as One Hub',
    columns: words(
      'id type key status name weight created_time test_time response_time base_url other balance balance_updated_time models group tag used_quota model_mapping model_headers custom_parameter priority proxy test_model only_chat pre_cost compatible_response allow_extra_body disabled_stream plugin deleted_at',
    ),
  },
  {
    family: 'donehub',
    readAs: 'donehub',
    source: 'deanxv/done-hub@3c80c29d8514c6dabb792240b8c4132318d27d59 (2026-06-19)',
    columns: words(
      'id type key status name weight created_time test_time response_time base_url other balance balance_updated_time models group tag used_quota model_mapping model_headers custom_parameter priority proxy test_model only_chat pre_cost compatible_response allow_extra_body cost_ratio disabled_stream plugin deleted_at',
    ),
  },
  {
    family: 'donehub',
    readAs: 'donehub',
    source: 'deanxv/done-hub@fe50d5208d7358a8999d0a7373c4acf8efca264d (2026-06-21)',
    columns: words(
      'id type key status name weight created_time test_time response_time base_url other balance balance_updated_time models group tag used_quota model_mapping model_headers header_override custom_parameter priority proxy test_model only_chat pre_cost compatible_response allow_extra_body pass_through_body cost_ratio disabled_stream plugin deleted_at',
    ),
  },
  {
    family: 'oneapi',
    readAs: 'oneapi',
    source: 'songquanpeng/one-api@2ad22e14256264f0787f5c82d7b5409d431a2d63 (2023-06-07)',
    columns: words(
      'id type key status name weight created_time test_time response_time base_url other balance balance_updated_time models group',
    ),
  },
  {
    family: 'oneapi',
    readAs: 'oneapi',
    source: 'songquanpeng/one-api@0cdab80a6e05441d265646d297f22d22da4a4aeb (2023-06-16)',
    columns: words(
      'id type key status name weight created_time test_time response_time base_url other balance balance_updated_time models group used_quota',
    ),
  },
  {
    family: 'oneapi',
    readAs: 'oneapi',
    source: 'songquanpeng/one-api@0941e294bf65207a3816f08bf1ac8bacd30d3687 (2023-06-27)',
    columns: words(
      'id type key status name weight created_time test_time response_time base_url other balance balance_updated_time models group used_quota model_mapping',
    ),
  },
  {
    family: 'oneapi',
    readAs: 'oneapi',
    source: 'songquanpeng/one-api@ecf8a6d87583446834c4f58622c7368d493687f6 (2023-09-17)',
    columns: words(
      'id type key status name weight created_time test_time response_time base_url other balance balance_updated_time models group used_quota model_mapping priority',
    ),
  },
  {
    family: 'oneapi',
    readAs: 'oneapi',
    source: 'songquanpeng/one-api@de9a58ca0bd2297078f2375afcbf5fc80d8939a1 (2024-02-18)',
    columns: words(
      'id type key status name weight created_time test_time response_time base_url other balance balance_updated_time models group used_quota model_mapping priority config',
    ),
  },
  {
    family: 'oneapi',
    readAs: 'oneapi',
    source: 'songquanpeng/one-api@6eb0770a89af537ec29acce576e574339357e143 (2024-11-10)',
    columns: words(
      'id type key status name weight created_time test_time response_time base_url other balance balance_updated_time models group used_quota model_mapping priority config system_prompt',
    ),
  },
  {
    family: 'newapi',
    readAs: 'newapi',
    source: 'QuantumNous/new-api@0102ffab86da3461be812c605d92800649e6eb06 (2026)',
    columns: words(
      'id type key openai_organization test_model status name weight created_time test_time response_time base_url other balance balance_updated_time models group used_quota model_mapping status_code_mapping priority auto_ban need_reconcile other_info tag setting param_override header_override remark channel_info settings',
    ),
  },
  {
    family: 'oneapi',
    readAs: 'oneapi',
    source: 'songquanpeng/one-api@bc2f48b1f290ceadcf3edfa99a48aeaedf3a0a3d (v0.5.0)',
    columns: words(
      'id type key status name weight created_time test_time response_time base_url other balance balance_updated_time models group used_quota model_mapping',
    ),
  },
  {
    family: 'oneapi',
    readAs: 'oneapi',
    source: 'songquanpeng/one-api@bc2f48b1f290ceadcf3edfa99a48aeaedf3a0a3d (v0.5.0)',
    note: 'a database started before test_time replaced accessed_time (May 2023) keeps accessed_time',
    columns: words(
      'id type key status name weight created_time accessed_time test_time response_time base_url other balance balance_updated_time models group used_quota model_mapping',
    ),
  },
  {
    family: 'oneapi',
    readAs: 'oneapi',
    source: 'songquanpeng/one-api@8df4a2670b98266bd287c698243fff327d9748cf (newest)',
    columns: words(
      'id type key status name weight created_time test_time response_time base_url other balance balance_updated_time models group used_quota model_mapping priority config system_prompt',
    ),
  },
  {
    family: 'newapi',
    readAs: 'newapi',
    source: 'Calcium-Ion/new-api@d6ce413c926ebbb57977ee92a50d6ba7a12d3e97 (v0.0.4, 2023-12-05)',
    columns: words(
      'id type key open_ai_organization status name weight created_time test_time response_time base_url other balance balance_updated_time models group used_quota model_mapping priority auto_ban',
    ),
  },
  {
    family: 'newapi',
    readAs: 'newapi',
    source: 'Calcium-Ion/new-api@1cd1e54be464e5e271f5517812cbc34703283f09 (v0.2.1.0-alpha.24, 2024-04-04)',
    columns: words(
      'id type key open_ai_organization test_model status name weight created_time test_time response_time base_url other balance balance_updated_time models group used_quota model_mapping priority auto_ban',
    ),
  },
  {
    family: 'newapi',
    readAs: 'newapi',
    source: 'Calcium-Ion/new-api@bdc65bdba20e2d5123f2678265cb67676c09de9d (v0.2.2.0-alpha.3, 2024-04-22)',
    columns: words(
      'id type key open_ai_organization test_model status name weight created_time test_time response_time base_url other balance balance_updated_time models group used_quota model_mapping status_code_mapping priority auto_ban',
    ),
  },
  {
    family: 'newapi',
    readAs: 'newapi',
    source: 'Calcium-Ion/new-api@4eb6217bc0ee (v0.2.4.0-alpha.5, 2024-06-15)',
    columns: words(
      'id type key open_ai_organization test_model status name weight created_time test_time response_time base_url other balance balance_updated_time models group used_quota model_mapping status_code_mapping priority auto_ban other_info',
    ),
  },
  {
    family: 'newapi',
    readAs: 'newapi',
    source: 'Calcium-Ion/new-api@48abfd055cf3 (v0.3.2.0, 2024-11-30)',
    columns: words(
      'id type key open_ai_organization test_model status name weight created_time test_time response_time base_url other balance balance_updated_time models group used_quota model_mapping status_code_mapping priority auto_ban other_info tag',
    ),
  },
  {
    family: 'newapi',
    readAs: 'newapi',
    source: 'Calcium-Ion/new-api@c1a5b0e1bbf3 (v0.4.0.0, 2024-12-15)',
    columns: words(
      'id type key open_ai_organization test_model status name weight created_time test_time response_time base_url other balance balance_updated_time models group used_quota model_mapping status_code_mapping priority auto_ban other_info tag setting',
    ),
  },
  {
    family: 'newapi',
    readAs: 'newapi',
    source: 'Calcium-Ion/new-api@f4cc90c8d6fed63032246bf0512987107e26ac91 (v0.6.0.4, 2025-03-31)',
    columns: words(
      'id type key open_ai_organization test_model status name weight created_time test_time response_time base_url other balance balance_updated_time models group used_quota model_mapping status_code_mapping priority auto_ban other_info tag setting param_override',
    ),
  },
  {
    family: 'newapi',
    readAs: 'newapi',
    source: 'Calcium-Ion/new-api@d6ce413c926ebbb57977ee92a50d6ba7a12d3e97 (v0.0.4, 2023-12-05)',
    note: 'a One API v0.6.0 database upgraded in place to New API keeps One API’s config',
    columns: words(
      'id type key open_ai_organization status name weight created_time test_time response_time base_url other balance balance_updated_time models group used_quota model_mapping priority auto_ban config',
    ),
  },
  {
    family: 'newapi',
    readAs: 'newapi',
    source: 'QuantumNous/new-api@0102ffab86da3461be812c605d92800649e6eb06 (2026)',
    note: 'a One API database (started before May 2023, upgraded to v0.6.9+) upgraded in place to New API keeps One API’s columns',
    columns: words(
      'id type key openai_organization test_model status name weight created_time test_time response_time base_url other balance balance_updated_time models group used_quota model_mapping status_code_mapping priority auto_ban need_reconcile other_info tag setting param_override header_override remark channel_info settings accessed_time config system_prompt',
    ),
  },
];
