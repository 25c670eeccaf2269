import { seededRandom } from '#test/support/seeded-random';

/*
 * The knowledge-base training bench's corpus (test/bench/kb-training.ts): documents of real-looking English and
 * Chinese prose, Markdown headings and paragraphs, assembled from seeded picks of the sentences below, so every run
 * trains the same text.
 */

const ENGLISH = [
  'A knowledge base stores the documents a team wants its assistant to answer from.',
  'Each document is split into chunks of about a thousand characters before it is embedded.',
  'The embedding model turns every chunk into a vector, and similar passages end up close together.',
  'When a question arrives, the search compares its vector with the stored ones and returns the nearest chunks.',
  'Full-text recall ranks chunks by the words they share with the question, weighting rare words higher.',
  'Mixed recall fuses both lists with reciprocal-rank fusion, so a chunk found by either method can win.',
  'Operators import the channels of their existing gateway and the relay routes each model call to one of them.',
  'A channel that fails repeatedly is set aside for a while, and its traffic moves to the next one in its tier.',
  'Billing records note the model, the tokens used and the key that made the call, never the text itself.',
  'The invoice for March lists three line items: storage, requests and the support plan renewed in February.',
  'Our office moves to the fourth floor on Monday; the meeting rooms keep their names and their numbers.',
  'To reset a password, open the account page, choose security, and follow the link sent to your address.',
  'The warehouse ships orders placed before two in the afternoon on the same day, weekends excepted.',
  'Refunds are issued to the original payment method within five to ten business days of approval.',
  'The release notes describe a faster importer, a new console tab and two fixes to the search ranking.',
  'Latency at the ninety-ninth percentile stayed under forty milliseconds during the load test last week.',
  'Backups run every night at one in the morning and are kept for thirty days in a separate region.',
  'New employees receive a laptop, a security key and an introduction to the on-call rotation.',
  'The contract renews automatically unless either party gives written notice sixty days in advance.',
  'Customer interviews showed that most people search by product name rather than by category.',
];

const CHINESE = [
  '知识库保存团队希望助手据以回答问题的文档。',
  '每篇文档在向量化之前都会被切分成大约一千个字符的片段。',
  '向量模型把每个片段转换成一个向量，含义相近的段落在空间中彼此靠近。',
  '用户提问时，系统把问题的向量与已存储的向量比较，返回最接近的片段。',
  '全文检索根据问题与片段共有的词语来排序，罕见的词语权重更高。',
  '混合检索用倒数排名融合合并两个结果列表，任一方法找到的片段都可能排在前面。',
  '运维人员导入现有网关的渠道，中继把每次模型调用路由到其中一个渠道。',
  '连续失败的渠道会被暂时搁置，它的流量转移到同一层级的下一个渠道。',
  '计费记录写明模型、使用的令牌数和发起调用的密钥，但从不记录文本本身。',
  '三月份的发票列出三项费用：存储、请求次数以及二月续订的支持服务。',
  '我们的办公室周一搬到四楼，会议室的名称和编号保持不变。',
  '重置密码时，请打开账户页面，选择安全设置，并点击发送到邮箱的链接。',
  '下午两点前下的订单当天发货，周末除外。',
  '退款在审核通过后五到十个工作日内退回原支付方式。',
  '发布说明介绍了更快的导入工具、新的控制台标签页以及搜索排序的两处修复。',
  '上周压力测试期间，第九十九百分位的延迟一直低于四十毫秒。',
  '备份每天凌晨一点运行，并在另一个区域保留三十天。',
  '新员工会领到一台笔记本电脑、一把安全密钥，并了解值班轮换制度。',
  '除非任何一方提前六十天书面通知，合同将自动续签。',
  '用户访谈表明，大多数人按产品名称而不是按类别搜索。',
];

/** `count` documents of about `length` characters, English and Chinese alternating. */
export function corpus(count: number, length: number, seed = 20261127): { name: string; text: string }[] {
  // Seeded, so the corpus is the same in every run.
  const next = seededRandom(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)] as T;
  return Array.from({ length: count }, (_, n) => {
    const chinese = n % 2 === 1;
    const sentences = chinese ? CHINESE : ENGLISH;
    const parts: string[] = [];
    let size = 0;
    let section = 1;
    while (size < length) {
      if (parts.length === 0 || next() < 0.15) {
        const heading = chinese
          ? `## 第${section}节 ${pick(sentences).slice(0, 8)}`
          : `## ${section}. ${pick(sentences).split(' ').slice(0, 5).join(' ')}`;
        section++;
        parts.push(heading);
        size += heading.length;
      }
      const paragraph = Array.from({ length: 3 + Math.floor(next() * 4) }, () => pick(sentences)).join(
        chinese ? '' : ' ',
      );
      parts.push(paragraph);
      size += paragraph.length + 2;
    }
    return { name: `${chinese ? '文档' : 'document'}-${n + 1}`, text: parts.join('\n\n') };
  });
}
